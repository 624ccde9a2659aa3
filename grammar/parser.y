/* SPDX-License-Identifier: Apache-2.0 */
/* parser.y - the grammar of .pc files: C text as located tokens and bracket
 * groups, with Parray directives and $...$ expressions as nodes. Every action
 * is one constructor call (compiler/front/ast.c). */
%define api.pure full
%define api.prefix {parse_}
%define parse.error detailed
%define parse.lac full
%locations
%expect 0
%param {pctx *ctx}

%code requires {
#include "parse.h"
#define PARSE_LTYPE loc
#define PARSE_LTYPE_IS_DECLARED 1
}

%code provides {
int parse_lex(PARSE_STYPE *v, PARSE_LTYPE *l, pctx *c);
void parse_error(PARSE_LTYPE *l, pctx *c, const char *msg);
int parse_keyword(int dkind, int depth, bool cuda, const char *w, size_t n);
}

%code {
#define YYLLOC_DEFAULT(Cur, Rhs, N)                                   \
  do {                                                                \
    if (N) { (Cur).b = YYRHSLOC(Rhs, 1).b; (Cur).e = YYRHSLOC(Rhs, N).e; } \
    else { (Cur).b = (Cur).e = YYRHSLOC(Rhs, 0).e; }                  \
  } while (0)
#define A (&ctx->ast)
static loc strip_hash(loc l) { return (loc){l.b + 1, l.e}; }
static loc inside(loc open, loc close) { return (loc){open.e, close.b}; }
static directive *parse_dir_noname(pctx *c, loc kw, loc close);
}

%union {
  int num;
  item *it;
  items list;
  dollar *dol;
  index_t *idx;
  dimast *dim;
  tbody *tb;
  directive *dir;
  dir_clause cl;
  dir_clauses cls;
}

%token END 0 "end of file"
%token <num> IDENT "identifier" NUMBER "number" CTOK "token"
%token STAR "'*'"
%token <list> CRUN "C code"
%token DOLLAR_OPEN "'$'" DOLLAR_CLOSE "closing '$'"
%token DEND "end of directive"
%token TYPEREF "type reference"
%token DIR_PARRAY "#parray" DIR_CREATE "#create" DIR_DESTROY "#destroy" DIR_COPY "#copy"
%token DIR_DETOUR "#detour" DIR_MAINHOST "#mainhost" DIR_SYNC "#sync" DIR_SUBPROG "#subprog"
%token DIR_GLOBAL "#global" DIR_INSERT "#insert" DIR_SCAN "#scan" DIR_END "#end"
%token KW_PAGED "paged" KW_PINNED "pinned" KW_DMEM "dmem" KW_SMEM "smem" KW_RMEM "rmem"
%token KW_PTHD "pthd" KW_MPI "mpi" KW_CUDA "cuda" KW_TO "to" KW_MINBLOCKS "min_blocks" KW_BOUND "bound" KW_AT "at" KW_TMA "tma"
%token '{' '}' '(' ')' '[' ']'

%type <list> citems xitems xexpr
%type <it> citem xitem xfirst block
%type <dol> dollar
%type <idx> indices index
%type <dim> dims dim
%type <tb> tbody
%type <num> memkind
%type <dir> directive
%type <cl> copy_at copy_clause detour_args detour_clause
%type <cls> detour_clauses

%%

/* file ::= citem* */
file: citems                          { ctx->result = $1; }
    ;

/* citem ::= C-run | '(' citem* ')' | '[' citem* ']' | '{' citem* '}' | dollar | directive
 * where a C-run is C tokens, preprocessor lines and the bracket groups the
 * scanner gathered by itself (grammar/lexer.l, parse_lex) */
citems: %empty                        { $$ = items_empty(); }
      | citems citem                  { $$ = items_add($1, $2); }
      | citems CRUN                   { $$ = items_concat($1, $2); }
      ;
citem: '(' citems ')'                 { $$ = ast_group(A, @1, '(', $2, @3); }
     | '[' citems ']'                 { $$ = ast_group(A, @1, '[', $2, @3); }
     | block                          { $$ = $1; }
     | dollar                         { $$ = $1 ? parse_fill_dollar(ctx, $1) : NULL; }
     | directive                      { $$ = $1 ? parse_fill_dir(ctx, $1) : NULL; }
     ;
block: '{' citems '}'                 { $$ = ast_group(A, @1, '{', $2, @3); }
     ;

/* expression tokens inside directive arguments and indices:
 * xitem ::= C-token | '(' xitem* ')' | '[' xitem* ']' | dollar */
xitems: %empty                        { $$ = items_empty(); }
      | xitems xitem                  { $$ = items_add($1, $2); }
      ;
xitem: xfirst                         { $$ = $1; }
     | '[' xitems ']'                 { $$ = ast_group(A, @1, '[', $2, @3); }
     ;
xfirst: IDENT                         { $$ = ast_tok(A, @1, $1); }
      | NUMBER                        { $$ = ast_tok(A, @1, $1); }
      | CTOK                          { $$ = ast_tok(A, @1, $1); }
      | '(' xitems ')'                { $$ = ast_group(A, @1, '(', $2, @3); }
      | dollar                        { $$ = $1 ? ast_dollar_item(A, $1) : NULL; }
      ;
/* xexpr ::= xitem+ , not starting with '[' */
xexpr: xfirst                         { $$ = items_add(items_empty(), $1); }
     | xexpr xitem                    { $$ = items_add($1, $2); }
     ;

/* dollar ::= '$' path '$' | '$' fn '(' path ')' '$' | '$' path index+ '$' */
dollar: DOLLAR_OPEN IDENT DOLLAR_CLOSE                  { $$ = ast_dollar_tid(A, @$, @2); }
      | DOLLAR_OPEN IDENT '(' IDENT ')' DOLLAR_CLOSE    { $$ = ast_dollar_func(A, @$, @2, @4); }
      | DOLLAR_OPEN IDENT indices DOLLAR_CLOSE          { $$ = ast_dollar_access(A, @$, @2, $3); }
      | DOLLAR_OPEN error DOLLAR_CLOSE                  { $$ = NULL; }
      ;
/* index ::= '[' ( index+ | expr ) ']' */
indices: index                        { $$ = $1; }
       | indices index                { $$ = ast_index_append($1, $2); }
       ;
index: '[' indices ']'                { $$ = ast_index_list(A, @$, $2); }
     | '[' xexpr ']'                  { $$ = ast_index_expr(A, @$, $2); }
     ;

/* directive ::= '#parray' '{' tbody '}' name
 *             | ('#create' | '#destroy' | '#insert') path '(' expr ')'
 *             | '#copy' path '(' expr ')' ['at' '(' exprs ')'] 'to' path '(' expr ')'
 *                   ['bound' '(' exprs ')' | 'tma' '(' expr ')']
 *             | '#detour' path ['(' args ')'] clause* block
 *                   (clause: word ['(' expr ')']: 'wait', 'nowait', 'reduce(...)', ...)
 *             | ('#mainhost' | '#global') block
 *             | '#sync' | '#scan' | '#subprog' name '(' params ')' citem* '#end' */
directive: DIR_PARRAY '{' tbody '}' IDENT DEND
             { $$ = ast_dir_parray(A, loc_span(@1, @5), @1, $3, @5); }
         | DIR_CREATE IDENT '(' xitems ')' DEND
             { $$ = ast_dir_call(A, D_CREATE, loc_span(@1, @5), @1, @2, $4, inside(@3, @5)); }
         | DIR_DESTROY IDENT '(' xitems ')' DEND
             { $$ = ast_dir_call(A, D_DESTROY, loc_span(@1, @5), @1, @2, $4, inside(@3, @5)); }
         | DIR_INSERT IDENT '(' xitems ')' DEND
             { $$ = ast_dir_call(A, D_INSERT, loc_span(@1, @5), @1, @2, $4, inside(@3, @5)); }
         | DIR_COPY copy_name '(' xitems ')' copy_at KW_TO copy_name '(' xitems ')' copy_clause DEND
             { $$ = ast_dir_copy(A, loc_span(@1, @12), @1, @2, $4, inside(@3, @5), $6, @8, $10, inside(@9, @11), $12); }
         | DIR_DETOUR IDENT detour_args detour_clauses DEND block
             { $$ = ast_dir_detour(A, loc_span(@1, @4), @1, @2, $3, $4, $6); }
         | DIR_MAINHOST DEND block    { $$ = ast_dir_block(A, D_MAINHOST, @1, @1, $3); }
         | DIR_GLOBAL DEND block      { $$ = ast_dir_block(A, D_GLOBAL, @1, @1, $3); }
         | DIR_SYNC DEND              { $$ = ast_dir_sync(A, @1, @1, -1); }
         | DIR_SCAN DEND              { $$ = ast_dir(A, D_SCAN, @1, @1); }
         | DIR_SUBPROG IDENT '(' xitems ')' DEND citems DIR_END DEND
             { $$ = ast_dir_subprog(A, loc_span(@1, @5), @1, @2, $4, inside(@3, @5), $7, @8); }
         | DIR_PARRAY '{' tbody '}' DEND
             { $$ = parse_dir_noname(ctx, @1, @4); }
         | DIR_PARRAY error DEND      { $$ = ast_dir_bad(A, D_PARRAY, @1, @1); }
         | DIR_CREATE error DEND      { $$ = ast_dir_bad(A, D_CREATE, @1, @1); }
         | DIR_DESTROY error DEND     { $$ = ast_dir_bad(A, D_DESTROY, @1, @1); }
         | DIR_INSERT error DEND      { $$ = ast_dir_bad(A, D_INSERT, @1, @1); }
         | DIR_COPY error DEND        { $$ = ast_dir_bad(A, D_COPY, @1, @1); }
         | DIR_DETOUR error DEND      { $$ = ast_dir_bad(A, D_DETOUR, @1, @1); }
         | DIR_SUBPROG error DEND     { $$ = ast_dir_bad(A, D_SUBPROG, @1, @1); }
         ;

/* the optional parts of #copy and #detour headers */
copy_name: IDENT | KW_AT | KW_TO | KW_BOUND | KW_TMA
         ;
copy_at: %empty                       { $$ = ast_clause(CLAUSE_NONE, @$, items_empty(), @$); }
       | KW_AT '(' xitems ')'         { $$ = ast_clause(CLAUSE_AT, @1, $3, inside(@2, @4)); }
       ;
copy_clause: %empty                   { $$ = ast_clause(CLAUSE_NONE, @$, items_empty(), @$); }
           | KW_BOUND '(' xitems ')'  { $$ = ast_clause(CLAUSE_BOUND, @1, $3, inside(@2, @4)); }
           | KW_TMA '(' xitems ')'    { $$ = ast_clause(CLAUSE_TMA, @1, $3, inside(@2, @4)); }
           ;
detour_args: %empty                   { $$ = ast_clause(CLAUSE_NONE, @$, items_empty(), @$); }
           | '(' xitems ')'           { $$ = ast_clause(CLAUSE_ARGS, @1, $2, inside(@1, @3)); }
           ;
detour_clauses: %empty                { $$ = (dir_clauses){NULL, 0}; }
              | detour_clauses detour_clause { $$ = ast_clauses_add(A, $1, $2); }
              ;
detour_clause: IDENT                  { $$ = ast_clause(CLAUSE_WORD, @1, items_empty(), @1); }
             | IDENT '(' xitems ')'   { $$ = ast_clause(CLAUSE_CALL, @1, $3, inside(@2, @4)); }
             ;

/* tbody ::= [memkind] [elemtype] (dim+ | '#' path) | ('pthd' | 'mpi') dim+
 *         | 'cuda' '(' params ')' dim+ ['min_blocks' '(' expr ')'] */
tbody: memkind elem dims              { $$ = ast_tbody_data(A, @$, $1, @2, @2.e > @2.b, $3); }
     | memkind elem TYPEREF           { $$ = ast_tbody_whole(A, @$, $1, @2, @2.e > @2.b, strip_hash(@3)); }
     | KW_PTHD dims                   { $$ = ast_tbody_thread(A, @$, TK_PTHD, items_empty(), @1, $2); }
     | KW_MPI dims                    { $$ = ast_tbody_thread(A, @$, TK_MPI, items_empty(), @1, $2); }
     | KW_CUDA '(' xitems ')' dims    { $$ = ast_tbody_thread(A, @$, TK_CUDA, $3, inside(@2, @4), $5); }
     | KW_CUDA '(' xitems ')' dims KW_MINBLOCKS '(' xexpr ')'
         { $$ = ast_tbody_min_blocks(ast_tbody_thread(A, @$, TK_CUDA, $3, inside(@2, @4), $5), $8, @8); }
     ;
memkind: %empty                       { $$ = MK_NONE; }
       | KW_PAGED                     { $$ = MK_PAGED; }
       | KW_PINNED                    { $$ = MK_PINNED; }
       | KW_DMEM                      { $$ = MK_DMEM; }
       | KW_SMEM                      { $$ = MK_SMEM; }
       | KW_RMEM                      { $$ = MK_RMEM; }
       ;
/* elemtype ::= (identifier | '*')*  -- any C type name */
elem: %empty
    | elem IDENT
    | elem STAR
    ;
/* dim ::= '[' ( expr ['#' path] | '#' path | dim+ ['#' path] ) ']' */
dims: dim                             { $$ = $1; }
    | dims dim                        { $$ = ast_dim_append($1, $2); }
    ;
dim: '[' xexpr ']'                    { $$ = ast_dim_size(A, @$, $2, @2); }
   | '[' TYPEREF ']'                  { $$ = ast_dim_ref(A, @$, strip_hash(@2)); }
   | '[' xexpr TYPEREF ']'            { $$ = ast_dim_sref(A, @$, $2, @2, strip_hash(@3)); }
   | '[' dims ']'                     { $$ = ast_dim_comp(A, @$, $2); }
   | '[' dims TYPEREF ']'             { $$ = ast_dim_cref(A, @$, $2, strip_hash(@3)); }
   ;

%%

/* '#parray {...}' with no name before the end of its line */
static directive *parse_dir_noname(pctx *c, loc kw, loc close) {
  loc after = {close.e, close.e};
  parse_error(&after, c, "expected a name for the type after '}'");
  return ast_dir_bad(&c->ast, D_PARRAY, kw, kw);
}

void parse_error(PARSE_LTYPE *l, pctx *c, const char *msg) {
  c->derror = true;
  if (c->eof_error) return;
  if (c->quiet_at == (int64_t)l->b && l->e == l->b) return;
  diag_error(c->dg, *l, "%s", msg);
}

/* The words that are keywords in a directive header, by directive and
 * bracket depth (the scanner asks; everywhere else a word is an IDENT):
 * a new clause of #copy is a line of `copy` here, its token above and its
 * production. min_blocks is a keyword only after a #parray's cuda. */
int parse_keyword(int dkind, int depth, bool cuda, const char *w, size_t n) {
  static const struct { const char *w; int t; } body[] = {
    {"paged", KW_PAGED}, {"pinned", KW_PINNED}, {"dmem", KW_DMEM}, {"smem", KW_SMEM},
    {"rmem", KW_RMEM}, {"pthd", KW_PTHD}, {"mpi", KW_MPI}, {"cuda", KW_CUDA}};
  static const struct { const char *w; int t; } copy[] = {
    {"at", KW_AT}, {"to", KW_TO}, {"bound", KW_BOUND}, {"tma", KW_TMA}};
  if (dkind == D_PARRAY && depth == 1) {
    for (size_t i = 0; i < sizeof body / sizeof body[0]; i++)
      if (str_eq(w, n, body[i].w)) return body[i].t;
    if (cuda && str_eq(w, n, "min_blocks")) return KW_MINBLOCKS;
  }
  if (dkind == D_COPY && depth == 0)
    for (size_t i = 0; i < sizeof copy / sizeof copy[0]; i++)
      if (str_eq(w, n, copy[i].w)) return copy[i].t;
  return IDENT;
}
