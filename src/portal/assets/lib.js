// The UI library, as the npm packages ship it (served from /portal/assets/<version>/vendor/): Preact, its hooks, and
// htm for markup in tagged templates (no JSX, so no build step).
import { h, render } from './vendor/preact.js';
import htm from './vendor/htm.js';

export { render };
export { useCallback, useEffect, useRef, useState } from './vendor/hooks.js';
export const html = htm.bind(h);
