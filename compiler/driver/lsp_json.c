/* SPDX-License-Identifier: Apache-2.0 */
/* lsp_json.c - JSON for the language server: a recursive-descent parser
 * (RFC 8259, depth-limited so that no message can exhaust the stack) and a
 * writer that escapes strings. */
#include "lsp_json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { JSON_MAX_DEPTH = 64 };

typedef struct jparser {
  const char *p, *end;
  bool bad;
} jparser;

static void skip_ws(jparser *j) {
  while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r')) j->p++;
}

static json *new_value(json_kind k) {
  json *v = calloc(1, sizeof *v);
  if (!v) {
    fputs("pac: out of memory\n", stderr);
    abort();
  }
  v->kind = k;
  return v;
}

static bool literal(jparser *j, const char *word) {
  size_t n = strlen(word);
  if ((size_t)(j->end - j->p) < n || memcmp(j->p, word, n)) return false;
  j->p += n;
  return true;
}

static int hex4(const char *p) {
  int v = 0;
  for (int i = 0; i < 4; i++) {
    char c = p[i];
    v = v * 16 + (c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -4096);
  }
  return v < 0 ? -1 : v;
}

static void put_utf8(sbuf *b, unsigned cp) {
  char u[4];
  size_t n;
  if (cp < 0x80) u[0] = (char)cp, n = 1;
  else if (cp < 0x800) u[0] = (char)(0xC0 | cp >> 6), u[1] = (char)(0x80 | (cp & 0x3F)), n = 2;
  else if (cp < 0x10000)
    u[0] = (char)(0xE0 | cp >> 12), u[1] = (char)(0x80 | (cp >> 6 & 0x3F)), u[2] = (char)(0x80 | (cp & 0x3F)), n = 3;
  else
    u[0] = (char)(0xF0 | cp >> 18), u[1] = (char)(0x80 | (cp >> 12 & 0x3F)), u[2] = (char)(0x80 | (cp >> 6 & 0x3F)),
    u[3] = (char)(0x80 | (cp & 0x3F)), n = 4;
  sb_write(b, u, n);
}

/* one \u escape (and its low surrogate); returns false when malformed */
static bool unicode_escape(jparser *j, sbuf *b) {
  if (j->end - j->p < 5) return false;
  int hi = hex4(j->p + 1);
  if (hi < 0) return false;
  j->p += 5;
  unsigned cp = (unsigned)hi;
  if (hi >= 0xD800 && hi < 0xDC00) {
    if (j->end - j->p < 6 || j->p[0] != '\\' || j->p[1] != 'u') return false;
    int lo = hex4(j->p + 2);
    if (lo < 0xDC00 || lo >= 0xE000) return false;
    j->p += 6;
    cp = 0x10000 + ((unsigned)(hi - 0xD800) << 10) + (unsigned)(lo - 0xDC00);
  } else if (hi >= 0xDC00 && hi < 0xE000) {
    return false;
  }
  put_utf8(b, cp);
  return true;
}

/* a string's text after its opening quote, into b; false when malformed */
static bool string_body(jparser *j, sbuf *b) {
  static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
  while (j->p < j->end && *j->p != '"') {
    unsigned char c = (unsigned char)*j->p;
    if (c < 0x20) return false;
    if (c != '\\') {
      sb_write(b, j->p++, 1);
      continue;
    }
    if (j->p + 1 >= j->end) return false;
    if (j->p[1] == 'u') {
      j->p++;
      if (!unicode_escape(j, b)) return false;
      continue;
    }
    const char *e = strchr(from, j->p[1]);
    if (!e || !j->p[1]) return false;
    sb_write(b, &to[e - from], 1);
    j->p += 2;
  }
  if (j->p >= j->end) return false;
  j->p++;
  return true;
}

static json *parse_value(jparser *j, int depth);

static json *parse_string(jparser *j) {
  sbuf b;
  sb_init(&b);
  j->p++;
  if (!string_body(j, &b)) {
    sb_free(&b);
    j->bad = true;
    return NULL;
  }
  json *v = new_value(JSON_STRING);
  v->len = b.len;
  v->str = sb_take(&b);
  return v;
}

static json *parse_number(jparser *j) {
  const char *s = j->p;
  if (j->p < j->end && *j->p == '-') j->p++;
  while (j->p < j->end && strchr("0123456789.eE+-", *j->p)) j->p++;
  char tmp[64];
  size_t n = (size_t)(j->p - s);
  if (n == 0 || n >= sizeof tmp) return j->bad = true, NULL;
  memcpy(tmp, s, n), tmp[n] = 0;
  char *end;
  double d = strtod(tmp, &end);
  if (*end) return j->bad = true, NULL;
  json *v = new_value(JSON_NUMBER);
  v->num = d;
  return v;
}

/* the elements of an array or the members of an object, after its bracket */
static json *parse_list(jparser *j, int depth, bool object) {
  json *v = new_value(object ? JSON_OBJECT : JSON_ARRAY), **tail = &v->first;
  char close = object ? '}' : ']';
  j->p++;
  skip_ws(j);
  if (j->p < j->end && *j->p == close) return j->p++, v;
  for (;;) {
    char *key = NULL;
    if (object) {
      skip_ws(j);
      json *k = j->p < j->end && *j->p == '"' ? parse_string(j) : NULL;
      skip_ws(j);
      if (!k || j->p >= j->end || *j->p != ':') return json_free(k), json_free(v), j->bad = true, NULL;
      key = k->str, k->str = NULL, json_free(k);
      j->p++;
    }
    json *e = parse_value(j, depth + 1);
    if (!e) return free(key), json_free(v), NULL;
    e->key = key, *tail = e, tail = &e->next;
    skip_ws(j);
    if (j->p < j->end && *j->p == ',') {
      j->p++;
      continue;
    }
    if (j->p < j->end && *j->p == close) return j->p++, v;
    return json_free(v), j->bad = true, NULL;
  }
}

static json *parse_value(jparser *j, int depth) {
  skip_ws(j);
  if (depth > JSON_MAX_DEPTH || j->p >= j->end) return j->bad = true, NULL;
  switch (*j->p) {
  case '{': return parse_list(j, depth, true);
  case '[': return parse_list(j, depth, false);
  case '"': return parse_string(j);
  case 't': return literal(j, "true") ? new_value(JSON_TRUE) : (j->bad = true, NULL);
  case 'f': return literal(j, "false") ? new_value(JSON_FALSE) : (j->bad = true, NULL);
  case 'n': return literal(j, "null") ? new_value(JSON_NULL) : (j->bad = true, NULL);
  default: return parse_number(j);
  }
}

json *json_parse(const char *text, size_t n) {
  jparser j = {text, text + n, false};
  json *v = parse_value(&j, 0);
  skip_ws(&j);
  if (v && j.p != j.end) json_free(v), v = NULL;
  return v;
}

void json_free(json *v) {
  while (v) {
    json *next = v->next;
    json_free(v->first);
    free(v->str), free(v->key), free(v);
    v = next;
  }
}

const json *json_get(const json *o, const char *name) {
  if (!o || o->kind != JSON_OBJECT) return NULL;
  for (const json *m = o->first; m; m = m->next)
    if (!strcmp(m->key, name)) return m;
  return NULL;
}

const char *json_str(const json *o, const char *name) {
  const json *v = json_get(o, name);
  return v && v->kind == JSON_STRING ? v->str : NULL;
}

long json_int(const json *o, const char *name, long def) {
  const json *v = json_get(o, name);
  return v && v->kind == JSON_NUMBER && v->num >= -1e15 && v->num <= 1e15 ? (long)v->num : def;
}

void json_write_string(sbuf *b, const char *s, size_t n) {
  sb_write(b, "\"", 1);
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '"' || c == '\\') sb_write(b, "\\", 1), sb_write(b, s + i, 1);
    else if (c == '\n') sb_puts(b, "\\n");
    else if (c == '\t') sb_puts(b, "\\t");
    else if (c == '\r') sb_puts(b, "\\r");
    else if (c < 0x20) sb_printf(b, "\\u%04x", c);
    else sb_write(b, s + i, 1);
  }
  sb_write(b, "\"", 1);
}

void json_write_id(sbuf *b, const json *v) {
  if (!v) {
    sb_puts(b, "null");
    return;
  }
  switch (v->kind) {
  case JSON_NUMBER: sb_printf(b, "%.17g", v->num); break;
  case JSON_STRING: json_write_string(b, v->str, v->len); break;
  case JSON_TRUE: sb_puts(b, "true"); break;
  case JSON_FALSE: sb_puts(b, "false"); break;
  default: sb_puts(b, "null"); break; /* ids are numbers or strings */
  }
}
