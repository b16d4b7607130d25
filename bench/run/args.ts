/** Command line of `npm run bench` (bench/run.ts) and the constants every phase shares. */
import { parseArgs } from 'node:util';
import { checkRoleName, urlAsRole } from '../perf/role.js';
import { TOOL_NAMES, type ToolName } from '../perf/workload.js';

export const HELP = `Usage: npm run bench -- --scale S|M|L [options]

  --scale S|M|L              Which bench database (npm run bench:data) this is; names the report section
  --database-url URL         Bench database (default: postgres://postgres@127.0.0.1:5432/sd_bench_<scale>)
  --elasticsearch-url URL    Measure Elasticsearch too (index built with searchdesk's indexer if missing)
  --opensearch-url URL       Measure OpenSearch too: searchdesk format, and the help desk's Searchkick format
  --es-index NAME            Elasticsearch alias (default sdbench_messages_<scale>)
  --os-index NAME            OpenSearch alias, searchdesk format (default sdbench_messages_<scale>)
  --searchkick-index NAME    OpenSearch alias, Searchkick format (default sdbench_searchkick_<scale>)
  --no-searchkick            Do not build or measure the Searchkick-format index
  --no-per-column            Skip the phase with per-column contact trigram indexes instead of the
                             help desk's combined one
  --server-role NAME         The server (and the core measured beside it) logs in as NAME, a role the
                             bench creates if missing with exactly README "Production" grants
                             (read-only, EXECUTE on the word statistics function), instead of the URL's
  --no-overhead              Skip bench/overhead.js (stdio cold start and per-call fixed cost, MCP and REST)
  --indexes-only             Build the missing message indexes, then stop (no measurement)
  --duration S               Seconds per concurrency level (1, 8, 32) of the throughput test (default 15)
  --per-tool N               Sampled queries per tool (default 40)
  --tools A,B                Measure only these tools (contacts, conversations, messages, articles, all);
                             no triage phase. Needs --out: a partial run is never recorded
  --reps N                   Measured calls per query at concurrency 1 (default 3)
  --helpdesk-reps N          Runs of the help desk's SQL per query over all phases (default: beside every
                             measured call at S and M, once per query at L, where it takes seconds)
  --default-cap N            Queries of the default (flag off) variant per tool (default: 20 at L, else all)
  --seed N                   Sample seed (default 1)
  --out FILE                 A trial run: the Markdown report goes to FILE (its section for this scale
                             replaced), and bench/results/ and bench/RESULTS.md are left as they are
  -h, --help                 Show this help
`;

export interface Args {
  scale: 'S' | 'M' | 'L';
  databaseUrl: string;
  /** The bench database's data shape as its comment records it ("default" when unrecorded); set by openBench. */
  shape?: string;
  /** The role the server logs in as (--server-role), undefined for the URL's own. */
  serverRole?: string;
  elasticsearchUrl?: string;
  opensearchUrl?: string;
  esIndex: string;
  osIndex: string;
  searchkickIndex: string;
  searchkick: boolean;
  perColumn: boolean;
  overhead: boolean;
  indexesOnly: boolean;
  duration: number;
  perTool: number;
  /** --tools: the only tools measured (a trial run); undefined for all. */
  tools?: ReadonlySet<ToolName>;
  reps: number;
  /** Help desk SQL runs per query and contact layout, over all phases (Infinity: beside every call). */
  helpdeskReps: number;
  defaultCap: number;
  seed: number;
  /** A trial run's Markdown file; without it the run writes its record (bench/results/). */
  out?: string;
  argv: string[];
}

/** The bench's statement timeout: long enough that the default variant's slow queries are measured, not cut. */
export const STATEMENT_TIMEOUT_MS = 60_000;
/** searchdesk's default SEARCHDESK_STATEMENT_TIMEOUT_MS (src/config/settings.ts): what a default install cuts at. */
export const DEFAULT_STATEMENT_TIMEOUT_MS = 5_000;
/** The large account of the bench data. */
export const ACCOUNT_ID = 1;

export function parse(argv: string[]): Args | undefined {
  const { values } = parseArgs({
    args: argv,
    options: {
      scale: { type: 'string' },
      'database-url': { type: 'string' },
      'server-role': { type: 'string' },
      'elasticsearch-url': { type: 'string' },
      'opensearch-url': { type: 'string' },
      'es-index': { type: 'string' },
      'os-index': { type: 'string' },
      'searchkick-index': { type: 'string' },
      'no-searchkick': { type: 'boolean', default: false },
      'no-per-column': { type: 'boolean', default: false },
      'no-overhead': { type: 'boolean', default: false },
      'indexes-only': { type: 'boolean', default: false },
      duration: { type: 'string', default: '15' },
      'per-tool': { type: 'string', default: '40' },
      tools: { type: 'string' },
      reps: { type: 'string', default: '3' },
      'helpdesk-reps': { type: 'string' },
      'default-cap': { type: 'string' },
      seed: { type: 'string', default: '1' },
      out: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.help) return undefined;
  const scale = values.scale?.toUpperCase();
  if (scale !== 'S' && scale !== 'M' && scale !== 'L') throw new Error('--scale must be S, M or L');
  const int = (name: string, v: string, min: number) => {
    if (!/^\d+$/.test(v) || Number(v) < min) throw new Error(`--${name} must be an integer ≥ ${min}`);
    return Number(v);
  };
  const s = scale.toLowerCase();
  const perTool = int('per-tool', values['per-tool'], 4);
  const reps = int('reps', values.reps, 1);
  return {
    scale,
    databaseUrl: values['database-url'] ?? `postgres://postgres@127.0.0.1:5432/sd_bench_${s}`,
    ...(values['server-role'] !== undefined && { serverRole: checkRoleName(values['server-role']) }),
    elasticsearchUrl: values['elasticsearch-url']?.replace(/\/$/, ''),
    opensearchUrl: values['opensearch-url']?.replace(/\/$/, ''),
    esIndex: values['es-index'] ?? `sdbench_messages_${s}`,
    osIndex: values['os-index'] ?? `sdbench_messages_${s}`,
    searchkickIndex: values['searchkick-index'] ?? `sdbench_searchkick_${s}`,
    searchkick: !values['no-searchkick'],
    perColumn: !values['no-per-column'],
    overhead: !values['no-overhead'],
    indexesOnly: values['indexes-only'],
    duration: int('duration', values.duration, 1),
    perTool,
    ...(values.tools !== undefined && { tools: toolsOf(values.tools, values.out) }),
    reps,
    helpdeskReps:
      values['helpdesk-reps'] !== undefined
        ? int('helpdesk-reps', values['helpdesk-reps'], 1)
        : scale === 'L'
          ? 1
          : Number.POSITIVE_INFINITY,
    defaultCap: values['default-cap'] !== undefined ? int('default-cap', values['default-cap'], 1) : scale === 'L' ? 20 : perTool,
    seed: int('seed', values.seed, 0),
    out: values.out,
    argv,
  };
}

/** The tools --tools names (`contacts` or `search_contacts`), only with --out. */
function toolsOf(list: string, out: string | undefined): ReadonlySet<ToolName> {
  if (out === undefined) throw new Error('--tools needs --out: a run of some tools is never recorded');
  const names = list.split(',').map((t) => (t.startsWith('search_') ? t : `search_${t}`));
  for (const n of names) if (!(TOOL_NAMES as readonly string[]).includes(n)) throw new Error(`--tools: unknown tool ${n}`);
  return new Set(names as ToolName[]);
}

/** The database URL the server is given: the bench's, or the same as --server-role. */
export function serverDatabaseUrl(args: Args): string {
  return args.serverRole === undefined ? args.databaseUrl : urlAsRole(args.databaseUrl, args.serverRole);
}

export const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);
export const redact = (url: string) => url.replace(/\/\/([^:@/]+):[^@/]+@/, '//$1:***@');
