// Preloaded with `node --import` by test/bundle.test.ts: appends the URL of every ES module the
// process loads to the file named by SEARCHDESK_TEST_LOADS (the hook runs on Node's loader thread).
import { register } from 'node:module';

register(
  `data:text/javascript,${encodeURIComponent(`
import { appendFileSync } from 'node:fs';
export async function load(url, context, next) {
  if (process.env.SEARCHDESK_TEST_LOADS) appendFileSync(process.env.SEARCHDESK_TEST_LOADS, url + '\\n');
  return next(url, context);
}`)}`,
);
