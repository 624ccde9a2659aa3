/* SPDX-License-Identifier: Apache-2.0 */
/* scope.h - block-structured symbol tables: the C names the translator has
 * seen declared (variables, parameters, typedefs, functions, enumerators)
 * and the Parray types, each visible from its declaration to the end of its
 * block, inner declarations shadowing outer ones. */
#ifndef PAC_SCOPE_H
#define PAC_SCOPE_H

#include "cdecl.h"
#include "types.h"

typedef enum { SYM_VAR, SYM_TYPEDEF, SYM_FUNC, SYM_ENUMC } sym_kind;

typedef struct sym sym;
struct sym {
  sym_kind kind;
  const char *name;
  size_t len;
  int depth;        /* scope depth (0: file scope) */
  int region;       /* code region it belongs to (host code, or a detour body) */
  cd_decl decl;     /* where it was declared (items); valid when has_decl */
  bool has_decl;
  bool is_param;
  bool is_pointer, is_array;
  const char *type_spec; /* declared by #create: "float" ... */
  const char *type_decl; /* ... and "*@" (@ stands for the name) */
  int handle_of;    /* distributed array: its handle variable is parray__h_<name> */
  dnode *created;   /* the type of its last #create, if any */
  loc created_at;
  struct lw_kframe *kinds; /* the lowering's: where its memory may be (lower_kinds.c) */
  int writes;       /* the lowering's: writes seen so far (assignments, ++, --) */
  int kver;         /* the lowering's: #create / #destroy / writes that changed its kinds */
  bool addr_taken;  /* the lowering's: &name seen */
  sym *prev;        /* the binding it shadows */
};

typedef struct tybind tybind;
struct tybind {
  dnode *node;
  ptype *type;
  int depth;
  tybind *prev;
};

typedef struct scopes {
  arena *ar;
  strmap syms, types;
  struct undo {
    bool is_type;
    const char *name;
    size_t len;
  } *log;
  int nlog, caplog;
  int *marks;
  int nmarks, capmarks;
  int depth;
} scopes;

void sc_init(scopes *s, arena *ar);
void sc_free(scopes *s);
void sc_push(scopes *s);
void sc_pop(scopes *s);
sym *sc_add(scopes *s, sym_kind k, const char *name, size_t len);
sym *sc_find(const scopes *s, const char *name, size_t len);
void sc_add_type(scopes *s, const char *name, size_t len, dnode *node, ptype *type);
tybind *sc_find_type(const scopes *s, const char *name, size_t len);

#endif
