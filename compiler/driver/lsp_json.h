/* SPDX-License-Identifier: Apache-2.0 */
/* lsp_json.h - the JSON the language server reads and writes: a parser of
 * one message into a tree of values (objects keep their members in order),
 * lookups by member name, and JSON strings and ids written into a growable
 * buffer (util.h's sbuf). Nothing here knows the protocol. */
#ifndef PAC_LSP_JSON_H
#define PAC_LSP_JSON_H

#include <stdbool.h>
#include <stddef.h>

#include "util.h"

typedef enum { JSON_NULL, JSON_FALSE, JSON_TRUE, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT } json_kind;

typedef struct json json;
struct json {
  json_kind kind;
  double num;   /* JSON_NUMBER */
  char *str;    /* JSON_STRING (UTF-8, NUL-terminated; len bytes) */
  size_t len;
  char *key;    /* the member's name when this value is an object's member */
  json *first;  /* JSON_ARRAY, JSON_OBJECT: the elements or members */
  json *next;   /* the next element or member */
};

/* Parse text[0..n) as one JSON value (depth at most 64); NULL when it is not
 * JSON. The tree is freed with json_free. */
json *json_parse(const char *text, size_t n);
void json_free(json *v);
/* The member name of object o (NULL when o is no object or lacks it). */
const json *json_get(const json *o, const char *name);
/* o's member name as a string / integer (def when absent or of another kind) */
const char *json_str(const json *o, const char *name);
long json_int(const json *o, const char *name, long def);

/* s[0..n) as a JSON string, quotes included */
void json_write_string(sbuf *b, const char *s, size_t n);
/* v written back as JSON (for ids, which may be numbers or strings) */
void json_write_id(sbuf *b, const json *v);

#endif
