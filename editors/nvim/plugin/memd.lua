-- memd's commands, and `memctl lsp` for note buffers (see :help memd).
if vim.g.loaded_memd then return end
vim.g.loaded_memd = true

local cmd = vim.api.nvim_create_user_command
cmd('MemdRecall', function(o) require('memd').recall(o.args) end,
  { nargs = '+', desc = 'memd: recall passages of your notes into the quickfix list' })
cmd('MemdRelated', function(o)
  if o.range > 0 then
    require('memd').related(o.line1, o.line2)
  else
    require('memd').related()
  end
end, { range = true, desc = 'memd: notes related to this paragraph or the selected lines' })
cmd('MemdChat', function(o) require('memd').chat(o.args) end,
  { nargs = '+', desc = 'memd: ask your notes; the answer streams into memd://chat' })
cmd('MemdStatus', function() require('memd').status() end, { nargs = 0, desc = "memd: the daemon's status" })

if vim.g.memd_no_lsp ~= true then
  require('memd')._register_lsp()
end
