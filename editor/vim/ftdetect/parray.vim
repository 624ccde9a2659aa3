" ftdetect/parray.vim - *.pc files are Parray sources (C with #parray
" directives and $...$ offsets), except pkg-config files, which share the
" suffix and start with variable lines such as prefix=...
autocmd BufRead,BufNewFile *.pc
      \ if getline(1) !~# '^\s*\%(prefix\|exec_prefix\|libdir\|includedir\|pcfiledir\)\s*=' |
      \   set filetype=parray |
      \ endif
