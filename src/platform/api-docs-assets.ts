// The API docs page's static files, compressed once and served with their hashes.
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { RequestHandler } from 'express';

const brotli = promisify(brotliCompress);
const gzipped = promisify(gzip);
// Brotli quality 6: 9 % larger than 11 on Scalar's bundle but 40 times faster (160 ms for the whole page, once per
// process), so the first visitor does not wait for the compression.
const BROTLI = { params: { [constants.BROTLI_PARAM_QUALITY]: 6 } };
const ONE_YEAR = 'public, max-age=31536000, immutable';

type Encoded = { body: Buffer; etag: string };

// A static response compressed once per encoding, on its first request, then kept in memory: brotli or gzip as the
// browser accepts (identity otherwise), with an ETag per variant (304 when it matches), `Vary: Accept-Encoding`, and
// either `immutable` (a URL that changes with its content) or `no-cache` (revalidated every time).
export function assetHandler(
  type: string,
  content: () => string | Buffer,
  opts: { immutable?: boolean } = {},
): RequestHandler {
  let identity: Encoded | undefined;
  const variants = new Map<string, Promise<Encoded>>();
  const raw = () => {
    if (identity) return identity;
    const data = content();
    const body = Buffer.isBuffer(data) ? data : Buffer.from(data);
    return (identity = { body, etag: createHash('sha256').update(body).digest('base64url').slice(0, 22) });
  };
  const encoded = (encoding: 'br' | 'gzip') => {
    let variant = variants.get(encoding);
    if (!variant) {
      const { body, etag } = raw();
      variant = (encoding === 'br' ? brotli(body, BROTLI) : gzipped(body, { level: 9 })).then((b) => ({
        body: b,
        etag: `${etag}-${encoding}`,
      }));
      variants.set(encoding, variant);
    }
    return variant;
  };
  return async (req, res) => {
    // brotli whenever accepted: browsers list it after gzip (`gzip, deflate, br, zstd`), at the same weight
    const encoding = req.acceptsEncodings('br') ? 'br' : req.acceptsEncodings('gzip') ? 'gzip' : false;
    const { body, etag } = encoding ? await encoded(encoding) : raw();
    res.type(type);
    res.vary('Accept-Encoding');
    res.set('Cache-Control', opts.immutable ? ONE_YEAR : 'no-cache');
    res.set('ETag', `"${etag}"`);
    if (encoding) res.set('Content-Encoding', encoding);
    res.send(body); // answers 304 itself when the request's If-None-Match holds this ETag
  };
}
