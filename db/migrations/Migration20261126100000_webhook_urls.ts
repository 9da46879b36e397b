import { Migration } from '@mikro-orm/migrations';

// Webhook URLs used to be stored as given ("HTTPS://Example.COM:443/x#y", which the production sender then refused as
// not https). They are now stored in their WHATWG form without the fragment; this brings the existing rows to it.
// Written out here rather than imported, so the migration keeps meaning what it meant.
const canonical = (raw: string): string | null => {
  try {
    const url = new URL(raw);
    url.hash = '';
    return url.href.length <= 2048 ? url.href : null;
  } catch {
    return null;
  }
};

export class Migration20261126100000_webhook_urls extends Migration {
  override name = 'Migration20261126100000_webhook_urls';

  override async up(): Promise<void> {
    const rows = (await this.execute('select id, url from webhooks')) as { id: string; url: string }[];
    for (const { id, url } of rows) {
      const href = canonical(url);
      if (href && href !== url) await this.execute('update webhooks set url = ? where id = ?', [href, id]);
    }
  }

  override down(): void | Promise<void> {
    // the spellings they were given in are not kept: a normalised URL delivers to the same place
  }
}
