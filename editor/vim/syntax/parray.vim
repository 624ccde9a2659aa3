" syntax/parray.vim - Vim syntax for Parray (.pc) files: C, plus the
" directives (#parray, #create, #destroy, #copy ... at(...) to ... bound(...)/tma(...), #detour ... wait/nowait, #sync, #mainhost,
" #subprog, #insert, #global, #end), $...$ offset expressions (nested),
" memory kinds (paged pinned dmem smem rmem) and thread kinds (pthd mpi cuda).
if exists('b:current_syntax')
  finish
endif
runtime! syntax/c.vim
unlet! b:current_syntax

" $...$: a $ followed by a name opens one; a $ not followed by a name closes it
syn region parrayDollar matchgroup=parrayDollarDelim start=/\$\ze\h/ end=/\$\ze\%([^A-Za-z0-9_]\|$\)/
      \ contains=parrayDollar,parrayDollarFunc,parrayTid,cNumber,cOperator
syn match parrayDollarFunc /\<\%(dim\|size\|cnt\)\%(_\d\+\)*\ze\s*(/ contained
syn match parrayTid /\<tid\%(_\d\+\)*\>/ contained

" directives; a #parray line holds kinds and #T_p references
syn match parrayDirective /^\s*#\s*\%(create\|destroy\|copy\|detour\|sync\%(_\d\+\)*\|scan\|mainhost\|subprog\|insert\|global\|end\)\>/
syn region parrayTypeDecl matchgroup=parrayDirective start=/^\s*#\s*parray\>/ end=/$/ keepend
      \ contains=parrayMemKind,parrayThreadKind,parrayRef,parrayMinBlocks,parrayDollar,cType,cNumber,cComment,cCommentL
syn keyword parrayMemKind paged pinned dmem smem rmem contained
syn keyword parrayThreadKind pthd mpi cuda contained
syn keyword parrayMinBlocks min_blocks contained
syn match parrayRef /#\h\w*/ contained
syn match parrayCopyTo /\<\%(to\|bound\)\>/ contained containedin=parrayCopyLine
" #copy A(a) at(i, j) to S(s) tma(bar): the clauses of a bulk tensor copy (before their '(')
syn match parrayCopyTo /\<\%(at\|tma\)\ze\s*(/ contained containedin=parrayCopyLine
" #detour K(a) wait {  /  nowait  /  reduce(+: s) unordered: the word clauses after the arguments
syn match parrayDetourClause /\%(^\s*#\s*detour\>.*\)\@<=\<\%(no\)\=wait\>\ze\s*{\=\s*$/
syn match parrayDetourClause /\%(^\s*#\s*detour\>.*)\s*.*\)\@<=\<unordered\>\ze\%(\s\+\%(no\)\=wait\)\=\s*{\=\s*$/
" #detour T reduce(+: s) scan(+: x) exscan(+: y) {: the clauses with (...)
syn match parrayDetourClause /\%(^\s*#\s*detour\>.*\)\@<=\<\%(reduce\|scan\|exscan\)\ze\s*(/
syn region parrayCopyLine matchgroup=parrayDirective start=/^\s*#\s*copy\>/ end=/$/ keepend
      \ contains=parrayCopyTo,parrayDollar,cNumber,cComment,cCommentL
syn keyword parrayBuiltin INIT_GPU

hi def link parrayDirective  PreProc
hi def link parrayDollarDelim Special
hi def link parrayDollar     Special
hi def link parrayDollarFunc Function
hi def link parrayTid        Identifier
hi def link parrayMemKind    StorageClass
hi def link parrayThreadKind Structure
hi def link parrayMinBlocks  Keyword
hi def link parrayRef        Type
hi def link parrayCopyTo     Keyword
hi def link parrayDetourClause Keyword
hi def link parrayBuiltin    Function

let b:current_syntax = 'parray'
