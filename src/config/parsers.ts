/**
 * The parsers of the settings (settings.ts): each reads one raw environment value (undefined when
 * the variable is not set) and returns what `loadConfig` reads, or throws a SettingError whose
 * message names the variable. Plain functions, not a validation library: every start runs them,
 * and these few shapes need none.
 */

/**
 * An MCP bundle host passes `${user_config.x}` through literally when the user left an optional
 * field blank; such a placeholder means "not set", like an empty string.
 */
const UNSUBSTITUTED_PLACEHOLDER = /^\$\{[^}]+\}$/;

/** A setting's parser: the raw value to what `toConfig` reads. */
export type Parse<T> = (raw: string | undefined) => T;

/** A refused value; `loadConfig` reports it as a ConfigError. */
export class SettingError extends Error {}

/** Trimmed; empty or an unsubstituted placeholder means not set. */
export const optionalString: Parse<string | undefined> = (raw) => {
  const v = raw?.trim();
  return v === undefined || v === '' || UNSUBSTITUTED_PLACEHOLDER.test(v) ? undefined : v;
};

/** optionalString, refused with `message` unless `ok` holds for the value it read. */
export const checkedString =
  (ok: (v: string) => boolean, message: string): Parse<string | undefined> =>
  (raw) => {
    const v = optionalString(raw);
    if (v !== undefined && !ok(v)) throw new SettingError(message);
    return v;
  };

export const urlString = (name: string) => checkedString((v) => /^https?:\/\/[^\s]+$/.test(v), `${name} must be an http(s) URL`);

export const intString = (name: string, min: number, max: number, fallback: number): Parse<number> => {
  const read = checkedString(
    (v) => /^\d+$/.test(v) && +v >= min && +v <= max,
    `${name} must be an integer between ${min} and ${max}`,
  );
  return (raw) => {
    const v = read(raw);
    return v === undefined ? fallback : Number(v);
  };
};

/** Exactly one of `values` (not trimmed); `fallback` when not set. */
export const oneOf =
  <const T extends string>(name: string, values: readonly T[], fallback: NoInfer<T>): Parse<T> =>
  (raw) => {
    if (raw === undefined) return fallback;
    if (!(values as readonly string[]).includes(raw)) throw new SettingError(`${name} must be one of ${values.join(', ')}`);
    return raw as T;
  };

/** pino's levels: the values LOG_LEVEL takes. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
