/**
 * Help-center articles, generated inside Postgres: a title from a template and two Zipf-drawn
 * words, a one-sentence description, and Markdown content (heading, paragraphs, numbered steps).
 * 70% published, 20% draft, 10% archived; mostly English locales.
 */
import type { SqlQuery } from '../../src/db/db.js';
import { ascendingSeconds, at, DAY_SECONDS, LONG_WINDOW_DAYS, Statement, type StatementContext } from './sql-build.js';
import { int, type RowRandom } from './sql-random.js';
import {
  ARTICLE_HEADINGS,
  ARTICLE_STEPS,
  ARTICLE_TITLES,
  SENTENCE_RANGES,
  SENTENCES,
  WORDS,
  type Template,
} from './vocabulary.js';

const LOCALES = ['de', 'fr', 'es', 'pt-BR'];
const OUTGOING = SENTENCES.slice(
  SENTENCE_RANGES.outgoing.first - 1,
  SENTENCE_RANGES.outgoing.first - 1 + SENTENCE_RANGES.outgoing.count,
);
const parts = (templates: readonly Template[]) => [0, 1, 2].map((n) => templates.map((t) => t[n as 0 | 1 | 2]));
const TITLE_PARTS = parts(ARTICLE_TITLES);
const STEP_PARTS = parts(ARTICLE_STEPS);
const SENTENCE_PARTS = parts(OUTGOING);

/** `pre + word + mid + word + post` of a template drawn for `key`. */
function filled(st: Statement, r: RowRandom, key: string, salt: number, templateParts: string[][]): string {
  const [pre, mid, post] = templateParts.map((values) => st.names(values));
  const t = `(1 + ${r.below(key, salt, templateParts[0]!.length)})`;
  const word = (s: number) => at(st.names(WORDS), r.zipf(key, s, WORDS.length));
  return `${at(pre!, t)} || ${word(salt + 1)} || ${at(mid!, t)} || ${word(salt + 3)} || ${at(post!, t)}`;
}

function contentExpr(st: Statement, r: RowRandom): string {
  const s = (n: number) => filled(st, r, `(a.i * 16 + ${int(n)})`, 10, SENTENCE_PARTS);
  const step = (n: number) => filled(st, r, `(a.i * 16 + ${int(n)})`, 20, STEP_PARTS);
  const heading = at(st.names(ARTICLE_HEADINGS), `1 + ${r.below('a.i', 6, ARTICLE_HEADINGS.length)}`);
  const more = `CASE WHEN ${r.unit('a.i', 7)} < 0.5 THEN E'\\n\\n' || ${s(9)} || ' ' || ${s(10)} ELSE '' END`;
  return `'# ' || a.title || E'\\n\\n' || ${s(1)} || ' ' || ${s(2)} || E'\\n\\n## ' || ${heading} || E'\\n\\n'
      || '1. ' || ${step(3)} || E'\\n2. ' || ${step(4)} || E'\\n3. ' || ${step(5)}
      || E'\\n\\n' || ${s(6)} || ' ' || ${s(7)} || ${more}`;
}

/** Articles with local indexes from … to (1-based) of one account. */
export function buildArticlesInsert(ctx: StatementContext, from: number, to: number): SqlQuery {
  const st = new Statement(ctx);
  const r = st.random('articles');
  const { plan } = ctx;
  const { articles, portals, categoriesPerPortal } = plan.counts;
  const window = LONG_WINDOW_DAYS * DAY_SECONDS;
  const portal = r.skewedBelow('i', 1, portals);
  const base = `SELECT i, ${portal} AS p, ${filled(st, r, 'i', 30, TITLE_PARTS)} AS title,
        ${ascendingSeconds('i', articles, window, r.unit('i', 50))} AS created_s
      FROM generate_series(${int(from)}, ${int(to)}) AS i OFFSET 0`;
  const category = `CASE WHEN ${r.unit('a.i', 3)} < 0.05 THEN NULL
      ELSE ${int(plan.first.category)} + a.p * ${int(categoriesPerPortal)} + ${r.below('a.i', 4, categoriesPerPortal)} END`;
  const status = `CASE WHEN ${r.unit('a.i', 5)} < 0.7 THEN 1 WHEN ${r.unit('a.i', 5)} < 0.9 THEN 0 ELSE 2 END`;
  const locale = `CASE WHEN ${r.unit('a.i', 8)} < 0.85 THEN 'en'
      ELSE ${at(st.names(LOCALES), `1 + ${r.below('a.i', 9, LOCALES.length)}`)} END`;
  const updated = `a.created_s + floor((${int(window)} - a.created_s) * ${r.unit('a.i', 51)})::bigint`;
  return st.done(`
    INSERT INTO articles (id, account_id, portal_id, category_id, title, description, content, status, locale, slug,
                          created_at, updated_at)
    SELECT ${int(plan.first.article - 1)} + a.i, ${int(plan.accountId)}, ${int(plan.first.portal)} + a.p, ${category},
           a.title, ${filled(st, r, '(a.i * 16)', 40, SENTENCE_PARTS)}, ${contentExpr(st, r)}, ${status}, ${locale},
           trim(BOTH '-' FROM lower(regexp_replace(a.title, '[^A-Za-z0-9]+', '-', 'g'))) || '-' || a.i,
           ${st.timeIn(LONG_WINDOW_DAYS, 'a.created_s')}, ${st.timeIn(LONG_WINDOW_DAYS, updated)}
    FROM (${base}) AS a`);
}
