/* SPDX-License-Identifier: Apache-2.0 */
/* lsp.c - the Language Server Protocol's transport and dispatch for pac
 * --lsp: messages framed by Content-Length headers, JSON-RPC requests and
 * notifications, the open documents (full-text synchronisation). What the
 * answers contain is lsp_features.c's. */
#include "lsp.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lsp_json.h"

#ifndef PAC_VERSION
#define PAC_VERSION "0.1.0"
#endif

enum { LSP_MAX_MESSAGE = 64 << 20, LSP_MAX_HEADER = 4096 };

typedef struct lsp_server {
  FILE *in, *out;
  lsp_env env;
  lsp_doc *docs;
  bool shutdown;
} lsp_server;

/* One message's body (NUL-terminated) into *body; 1 read, 0 end of input,
 * -1 headers without a usable Content-Length (a body too large is skipped;
 * without a length nothing can be, and the reading goes on at the next
 * line). */
static int read_message(FILE *in, char **body, size_t *len) {
  char line[LSP_MAX_HEADER];
  long n = -1;
  while (fgets(line, sizeof line, in)) {
    if (!strcmp(line, "\r\n") || !strcmp(line, "\n")) {
      if (n > LSP_MAX_MESSAGE) {
        for (long k = 0; k < n && getc(in) != EOF; k++) continue;
        return -1;
      }
      if (n < 0) return -1;
      char *b = malloc((size_t)n + 1);
      if (!b || fread(b, 1, (size_t)n, in) != (size_t)n) return free(b), 0;
      b[n] = 0;
      *body = b, *len = (size_t)n;
      return 1;
    }
    if (!strncasecmp(line, "Content-Length:", 15)) {
      char *end;
      n = strtol(line + 15, &end, 10);
      while (*end == ' ' || *end == '\r' || *end == '\n') end++;
      if (*end || end == line + 15) n = -1;
    }
  }
  return 0;
}

static void send_message(lsp_server *s, const sbuf *b) {
  fprintf(s->out, "Content-Length: %zu\r\n\r\n", b->len);
  fwrite(b->s, 1, b->len, s->out);
  fflush(s->out);
}

static void send_result(lsp_server *s, const json *id, const char *result) {
  sbuf b;
  sb_init(&b);
  sb_puts(&b, "{\"jsonrpc\":\"2.0\",\"id\":");
  json_write_id(&b, id);
  sb_printf(&b, ",\"result\":%s}", result);
  send_message(s, &b);
  sb_free(&b);
}

static void send_error(lsp_server *s, const json *id, int code, const char *msg) {
  sbuf b;
  sb_init(&b);
  sb_puts(&b, "{\"jsonrpc\":\"2.0\",\"id\":");
  json_write_id(&b, id);
  sb_printf(&b, ",\"error\":{\"code\":%d,\"message\":", code);
  json_write_string(&b, msg, strlen(msg));
  sb_puts(&b, "}}");
  send_message(s, &b);
  sb_free(&b);
}

static lsp_doc **find_doc(lsp_server *s, const char *uri) {
  lsp_doc **d = &s->docs;
  while (*d && strcmp((*d)->uri, uri)) d = &(*d)->next;
  return d;
}

static void free_doc(lsp_doc *d) {
  free(d->uri), free(d->path), free(d->text), free(d);
}

/* The file a file: URI names, %-escapes decoded; other schemes as they are. */
static char *uri_path(const char *uri) {
  const char *p = !strncmp(uri, "file://", 7) ? uri + 7 : uri;
  char *out = malloc(strlen(p) + 1), *o = out;
  for (; *p; p++) {
    int hi, lo;
    if (*p == '%' && p[1] && p[2] && sscanf(p + 1, "%1x%1x", (unsigned *)&hi, (unsigned *)&lo) == 2)
      *o++ = (char)(hi * 16 + lo), p += 2;
    else *o++ = *p;
  }
  *o = 0;
  return out;
}

static void publish(lsp_server *s, const char *uri, const lsp_doc *doc) {
  sbuf b;
  sb_init(&b);
  sb_puts(&b, "{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/publishDiagnostics\",\"params\":{\"uri\":");
  json_write_string(&b, uri, strlen(uri));
  sb_puts(&b, ",\"diagnostics\":");
  if (doc) lsp_diagnostics(&s->env, doc, &b);
  else sb_puts(&b, "[]");
  sb_puts(&b, "}}");
  send_message(s, &b);
  sb_free(&b);
}

/* didOpen and didChange: the document's whole text is text */
static void set_text(lsp_server *s, const char *uri, const json *text) {
  if (!uri || !text || text->kind != JSON_STRING) return;
  lsp_doc **d = find_doc(s, uri);
  if (!*d) {
    *d = calloc(1, sizeof **d);
    if (!*d) return;
    (*d)->uri = strdup(uri), (*d)->path = uri_path(uri);
  }
  free((*d)->text);
  (*d)->text = malloc(text->len + 1);
  memcpy((*d)->text, text->str, text->len + 1);
  (*d)->len = text->len;
  publish(s, uri, *d);
}

static void did_change(lsp_server *s, const json *params) {
  const json *changes = json_get(params, "contentChanges"), *last = NULL;
  for (const json *c = changes ? changes->first : NULL; c; c = c->next) last = c;
  const char *uri = json_str(json_get(params, "textDocument"), "uri");
  set_text(s, uri, json_get(last, "text"));
}

static void did_close(lsp_server *s, const json *params) {
  const char *uri = json_str(json_get(params, "textDocument"), "uri");
  if (!uri) return;
  lsp_doc **d = find_doc(s, uri);
  if (!*d) return;
  lsp_doc *gone = *d;
  *d = gone->next;
  free_doc(gone);
  publish(s, uri, NULL);
}

/* hover and definition: the document and position a request names */
static void position_request(lsp_server *s, const json *id, const json *params, bool hover) {
  const char *uri = json_str(json_get(params, "textDocument"), "uri");
  const json *pos = json_get(params, "position");
  lsp_doc **d = uri ? find_doc(s, uri) : NULL;
  if (!d || !*d || !pos) {
    send_result(s, id, "null");
    return;
  }
  lsp_pos p = {json_int(pos, "line", -1), json_int(pos, "character", -1)};
  sbuf b;
  sb_init(&b);
  if (hover) lsp_hover(&s->env, *d, p, &b);
  else lsp_definition(*d, p, &b);
  send_result(s, id, b.s ? b.s : "null");
  sb_free(&b);
}

/* One message; returns -1 to go on, else the exit status. */
static int dispatch(lsp_server *s, const json *msg) {
  const char *method = json_str(msg, "method");
  const json *id = json_get(msg, "id"), *params = json_get(msg, "params");
  if (!method) {
    if (id) send_error(s, id, -32600, "a request needs a method");
    return -1; /* a response to us: we send no requests */
  }
  if (!strcmp(method, "exit")) return s->shutdown ? 0 : 1;
  if (!strcmp(method, "initialize"))
    send_result(s, id,
                "{\"capabilities\":{\"textDocumentSync\":{\"openClose\":true,\"change\":1},\"hoverProvider\":true,"
                "\"definitionProvider\":true},\"serverInfo\":{\"name\":\"pac\",\"version\":\"" PAC_VERSION "\"}}");
  else if (!strcmp(method, "shutdown")) s->shutdown = true, send_result(s, id, "null");
  else if (!strcmp(method, "textDocument/didOpen")) {
    const json *td = json_get(params, "textDocument");
    set_text(s, json_str(td, "uri"), json_get(td, "text"));
  } else if (!strcmp(method, "textDocument/didChange")) did_change(s, params);
  else if (!strcmp(method, "textDocument/didClose")) did_close(s, params);
  else if (!strcmp(method, "textDocument/hover")) position_request(s, id, params, true);
  else if (!strcmp(method, "textDocument/definition")) position_request(s, id, params, false);
  else if (id) send_error(s, id, -32601, "pac's language server does not offer this method");
  /* other notifications (initialized, didSave, $/...) need nothing */
  return -1;
}

int pac_lsp_serve(FILE *in, FILE *out, const pac_options *base, const char *selfinc) {
  lsp_server s = {.in = in, .out = out, .env = {base, selfinc}};
  int status = 1; /* the input ended without "exit" */
  for (;;) {
    char *body = NULL;
    size_t len = 0;
    int r = read_message(in, &body, &len);
    if (r == 0) break;
    if (r < 0) {
      fputs("pac --lsp: a message without a valid Content-Length header was skipped\n", stderr);
      continue;
    }
    json *msg = json_parse(body, len);
    free(body);
    if (!msg || msg->kind != JSON_OBJECT) {
      send_error(&s, NULL, -32700, "the message is not a JSON object");
      json_free(msg);
      continue;
    }
    int rc = dispatch(&s, msg);
    json_free(msg);
    if (rc >= 0) {
      status = rc;
      break;
    }
  }
  while (s.docs) {
    lsp_doc *next = s.docs->next;
    free_doc(s.docs);
    s.docs = next;
  }
  return status;
}
