-- decimal_key(text), as db/decimal-sql.ts gives it to SQLite: a key that sorts in the numeric
-- order of exact decimal strings (sign, length of the integer part, the digits; nines' complement
-- for negatives), '~' for text that is no plain decimal. Its type compares in the "C" collation,
-- byte by byte as SQLite's binary collation does, so ORDER BY decimal_key(amount) and
-- decimal_key(amount) >= decimal_key($1) read alike on both engines. The whitespace trimmed is
-- JavaScript's String.prototype.trim's. db/postgres.pg.test.ts checks it against decimalKey.
CREATE DOMAIN decimal_key_text AS text COLLATE "C";--> statement-breakpoint
CREATE FUNCTION decimal_key(v text) RETURNS decimal_key_text
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  m text[];
  int_part text;
  frac text;
  len text;
BEGIN
  -- Most amounts have nothing to trim: read as they are first.
  m := regexp_match(v, '^(-)?([0-9]+)(?:\.([0-9]+))?$');
  IF m IS NULL THEN
    m := regexp_match(
      regexp_replace(v, '^[\u0009-\u000D\u0020\u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000\uFEFF]+|[\u0009-\u000D\u0020\u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000\uFEFF]+$', '', 'g'),
      '^(-)?([0-9]+)(?:\.([0-9]+))?$');
  END IF;
  IF m IS NULL THEN
    RETURN '~';
  END IF;
  int_part := ltrim(m[2], '0');
  IF int_part = '' THEN
    int_part := '0';
  END IF;
  frac := rtrim(coalesce(m[3], ''), '0');
  len := length(int_part)::text;
  IF length(len) < 4 THEN
    len := lpad(len, 4, '0');
  END IF;
  IF m[1] IS NULL OR (int_part = '0' AND frac = '') THEN
    RETURN '1' || len || int_part || '.' || frac;
  END IF;
  RETURN '0' || translate(len, '0123456789', '9876543210') || translate(int_part, '0123456789', '9876543210') || '.'
    || translate(frac, '0123456789', '9876543210') || ':';
END;
$$;
