" ftdetect/parray.vim - *.pc files are Parray sources (C with #parray
" directives and $...$ offsets) or pkg-config files, which share the suffix.
" Told apart by content: in a pkg-config file every line (of the first 200)
" that is not blank or a # line is a field (Name:, Version:, Libs:, ...)
" or a variable (prefix=...), and there is one at least; it gets the filetype
" pkgconfig. Anything else, a new empty file included, is parray.
function! s:ParrayOrPkgConfig() abort
  let pkg = 0
  for line in getline(1, min([line('$'), 200]))
    if line =~# '^\s*#\s*parray\s*{' || line =~# '^\s*#\s*include\s*[<"]'
      " a Parray type or an include (other # lines may be pkg-config comments)
      let pkg = 0
      break
    elseif line =~# '^\s*#' || line =~# '^\s*$'
      " a comment or a blank line: either kind has them
    elseif line =~# '^\%(Name\|Description\|Version\|URL\|Requires\|Conflicts\|Provides\|Libs\|Cflags\)\%(\.private\)\=\s*:'
          \ || line =~# '^\h[[:alnum:]_.]*\s*=[^;]*$'
      let pkg = 1
    else
      " C
      let pkg = 0
      break
    endif
  endfor
  if pkg
    set filetype=pkgconfig
  else
    set filetype=parray
  endif
endfunction
autocmd BufRead,BufNewFile *.pc call s:ParrayOrPkgConfig()
