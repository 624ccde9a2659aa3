-- SPDX-License-Identifier: Apache-2.0
-- parray_lsp.lua - Neovim: pac's language server, `pac --lsp`, started with
-- vim.lsp.start for buffers of the filetype "parray" (which editor/vim's
-- ftdetect and syntax files, read by Neovim too, give .pc files). Set
-- vim.g.parray_lsp_cmd (a list, e.g. { "pac", "--lsp", "-Iinclude" }) to
-- change the command. Installed into share/nvim/site/plugin/.
if vim.g.loaded_parray_lsp then
  return
end
vim.g.loaded_parray_lsp = true

vim.api.nvim_create_autocmd("FileType", {
  pattern = "parray",
  callback = function(ev)
    vim.lsp.start({
      name = "pac",
      cmd = vim.g.parray_lsp_cmd or { "pac", "--lsp" },
      root_dir = vim.fs.dirname(vim.api.nvim_buf_get_name(ev.buf)),
    })
  end,
})
