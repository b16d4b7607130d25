import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';

const configError = (env: Record<string, string>) => {
  try {
    loadConfig(env);
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as Error).message;
  }
  throw new Error('expected a ConfigError');
};

describe('loadConfig (contract §7)', () => {
  it('has working defaults: embedded database, Postgres engine, loopback', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      databaseUrl: undefined,
      engine: { kind: 'postgres' },
      host: '127.0.0.1',
      port: 3000,
      maxResultChars: 60_000,
      messageSearch: 'flag',
    });
  });

  it('selects Elasticsearch or OpenSearch with their default index names per format', () => {
    expect(loadConfig({ ELASTICSEARCH_URL: 'http://es:9200' }).engine).toEqual({
      kind: 'elasticsearch',
      url: 'http://es:9200',
      index: 'searchdesk_messages',
      format: 'searchdesk',
    });
    expect(loadConfig({ OPENSEARCH_URL: 'http://os:9200', SEARCHDESK_INDEX_FORMAT: 'searchkick' }).engine).toEqual({
      kind: 'opensearch',
      url: 'http://os:9200',
      index: 'messages_production',
      format: 'searchkick',
    });
  });

  it('refuses both engines at once', () => {
    expect(configError({ ELASTICSEARCH_URL: 'http://a', OPENSEARCH_URL: 'http://b' })).toBe(
      'invalid configuration: set ELASTICSEARCH_URL or OPENSEARCH_URL, not both',
    );
  });

  it('reports one clear line for bad values', () => {
    expect(configError({ PORT: 'eighty' })).toBe('invalid configuration: PORT must be an integer between 0 and 65535');
    expect(configError({ SEARCHDESK_MESSAGE_SEARCH: 'some' })).toBe(
      'invalid configuration: SEARCHDESK_MESSAGE_SEARCH must be one of flag, all',
    );
    expect(configError({ ELASTICSEARCH_URL: 'localhost:9200' })).toBe(
      'invalid configuration: ELASTICSEARCH_URL must be an http(s) URL',
    );
    expect(configError({ SEARCHDESK_ACCOUNT_ID: '0' })).toBe(
      'invalid configuration: SEARCHDESK_ACCOUNT_ID must be a positive integer',
    );
    expect(configError({ SEARCHDESK_APP_URL: 'desk.example.com' })).toBe(
      'invalid configuration: SEARCHDESK_APP_URL must be an http(s) URL',
    );
  });

  it("reads the help desk's address without trailing slashes, unset by default", () => {
    expect(loadConfig({}).appUrl).toBeUndefined();
    expect(loadConfig({ SEARCHDESK_APP_URL: 'https://desk.example.com/' }).appUrl).toBe('https://desk.example.com');
    expect(loadConfig({ SEARCHDESK_APP_URL: 'http://10.0.0.5:3000/chatwoot//' }).appUrl).toBe('http://10.0.0.5:3000/chatwoot');
  });

  it('treats empty values and unsubstituted bundle placeholders as unset', () => {
    const c = loadConfig({
      DATABASE_URL: '${user_config.database_url}',
      ELASTICSEARCH_URL: '',
      SEARCHDESK_ACCOUNT_ID: '${user_config.account_id}',
    });
    expect(c).toMatchObject({ databaseUrl: undefined, engine: { kind: 'postgres' }, defaultAccountId: undefined });
  });

  it('reads extra allowed Host names, lower-cased', () => {
    expect(loadConfig({ SEARCHDESK_ALLOWED_HOSTS: 'Search.Example.com, proxy' }).allowedHosts).toEqual([
      'search.example.com',
      'proxy',
    ]);
  });

  it('splits allowed origins', () => {
    expect(loadConfig({ SEARCHDESK_ALLOWED_ORIGINS: 'https://a.example, https://b.example' }).allowedOrigins).toEqual([
      'https://a.example',
      'https://b.example',
    ]);
  });

  it('limits HTTP requests per token and per anonymous IP by default; 0 turns a limit off', () => {
    expect(loadConfig({}).rateLimit).toEqual({ perToken: 12_000, anonymousPerIp: 600 });
    expect(
      loadConfig({ SEARCHDESK_RATE_LIMIT_PER_MINUTE: '0', SEARCHDESK_RATE_LIMIT_ANONYMOUS_PER_MINUTE: '30' }).rateLimit,
    ).toEqual({ perToken: 0, anonymousPerIp: 30 });
    expect(configError({ SEARCHDESK_RATE_LIMIT_PER_MINUTE: '-1' })).toBe(
      'invalid configuration: SEARCHDESK_RATE_LIMIT_PER_MINUTE must be an integer between 0 and 10000000',
    );
  });
});
