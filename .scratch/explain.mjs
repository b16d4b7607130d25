// usage: node explain.mjs <db> <module> <q> [strategy] [gin]
import pg from 'pg';
const [,, db, kind, q, strategy, extra] = process.argv;
const pool = new pg.Pool({ connectionString: `postgres://postgres@127.0.0.1:5432/${db}` });
const access = { accountId: 1, inboxIds: Array.from({ length: 50 }, (_, i) => i + 1), userId: 1, role: 'administrator', flags: { searchWithGin: true, advancedSearch: true } };
const { rows: inb } = await pool.query('select array_agg(id order by id) ids from inboxes where account_id=1');
access.inboxIds = inb[0].ids;
const params = { q, page: 1, ...(extra ? JSON.parse(extra) : {}) };
let query;
if (kind === 'contacts') query = (await import('/work/main/dist/search/contacts.js')).buildContactsQuery(access, params, strategy);
if (kind === 'conversations') query = (await import('/work/main/dist/search/conversations.js')).buildConversationsQuery(access, params, strategy);
for (let i = 0; i < 3; i++) await pool.query(query.text, query.values);
const t = performance.now(); const n = 5;
for (let i = 0; i < n; i++) await pool.query(query.text, query.values);
const res = await pool.query('EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ' + query.text, query.values);
console.log(res.rows.map(r => r['QUERY PLAN']).join('\n'));
console.log(`avg ${((performance.now() - t) / n).toFixed(2)} ms rows=${(await pool.query(query.text, query.values)).rowCount}`);
await pool.end();
