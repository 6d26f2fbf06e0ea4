-- Headless Neovim against a real memd (editors/test/run.sh starts it on a
-- copy of examples/vault, MEMD_TEST_VAULT, with the generated chat model).
-- Each case drives the plugin's commands as a person would and checks what
-- lands in Neovim: the quickfix list, the chat buffer, LSP answers.
local vault = assert(os.getenv('MEMD_TEST_VAULT'), 'MEMD_TEST_VAULT is not set')
local short = assert(os.getenv('MEMD_TEST_SHORT'), 'MEMD_TEST_SHORT is not set') -- chat's few short notes
local memd = require('memd')
local failed = 0
local timeout = 30000

local function log(msg) io.stderr:write(msg .. '\n') end

local function case(name, fn)
  local ok, err = pcall(fn)
  if ok then
    log('ok    ' .. name)
  else
    failed = failed + 1
    log('FAIL  ' .. name .. ': ' .. tostring(err))
  end
  vim.cmd('silent! %bwipeout!')
  vim.fn.setqflist({}, 'r', { items = {} })
end

local function wait_for(what, cond)
  if not vim.wait(timeout, cond, 20) then error('timed out waiting for ' .. what) end
end

local function file_line(path, lnum)
  return vim.fn.readfile(path)[lnum]
end

local function qf_paths(items)
  local paths = {}
  for _, it in ipairs(items) do table.insert(paths, vim.api.nvim_buf_get_name(it.bufnr)) end
  return paths
end

case('MemdRecall fills the quickfix list with the note and line memd found', function()
  vim.cmd('MemdRecall when should I water the tomatoes')
  wait_for('the quickfix list', function() return #vim.fn.getqflist() > 0 end)
  local first = vim.fn.getqflist()[1]
  local path = vim.api.nvim_buf_get_name(first.bufnr)
  assert(path == vault .. '/garden/Tomatoes.md', 'first hit is ' .. path)
  assert(file_line(path, first.lnum) == '# Tomatoes', 'line ' .. first.lnum .. ' is ' .. tostring(file_line(path, first.lnum)))
  assert(vim.fn.getqflist({ title = 1 }).title:find('when should I water', 1, true), 'quickfix title')
  vim.cmd('cc 1')
  assert(vim.api.nvim_buf_get_name(0) == path and vim.fn.line('.') == first.lnum, 'cc 1 did not land on the hit')
end)

case('MemdRelated recalls the paragraph under the cursor, leaving out its own note', function()
  local here = vault .. '/kitchen/Baking troubleshooting.md'
  vim.cmd('edit ' .. vim.fn.fnameescape(here))
  vim.fn.search('Under-fermented')
  vim.cmd('MemdRelated')
  wait_for('the quickfix list', function() return #vim.fn.getqflist() > 0 end)
  local paths = qf_paths(vim.fn.getqflist())
  assert(paths[1] == vault .. '/kitchen/Sourdough.md', 'first related note is ' .. paths[1])
  assert(not vim.tbl_contains(paths, here), 'the note itself is among its related notes')
end)

case('MemdRelated on a range recalls the selected lines', function()
  vim.cmd('edit ' .. vim.fn.fnameescape(vault .. '/garden/Tomatoes.md'))
  local l = vim.fn.search('Water the tomatoes deeply')
  vim.cmd(l .. ',' .. (l + 1) .. 'MemdRelated')
  wait_for('the quickfix list', function() return #vim.fn.getqflist() > 0 end)
  local first = qf_paths(vim.fn.getqflist())[1]
  assert(first == vault .. '/journal/2026-07-06.md', 'first related note is ' .. first)
end)

case('MemdChat streams the answer into memd://chat and lists jumpable sources', function()
  -- The generated model repeats its answer until --max-tokens, long enough
  -- for the answer to reach Neovim in several pieces.
  memd.setup({ chat_args = { '--folder', short, '--max-tokens', '60' } })
  local job = memd.chat('water tomatoes?')
  local buf = vim.fn.bufnr('memd://chat')
  assert(job > 0 and buf > 0, 'chat did not start memctl or make memd://chat')
  local pieces = 0 -- buffer changes while memctl still ran
  vim.api.nvim_buf_attach(buf, false, {
    on_lines = function()
      if vim.b[buf].memd_chat_done == nil then pieces = pieces + 1 end
    end,
  })
  wait_for('the answer', function() return vim.b[buf].memd_chat_done ~= nil end)
  local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  local text = table.concat(lines, '\n')
  assert(text:find('> water tomatoes?\n\nwater is good[1]. water is good[1].', 1, true),
    'answer not in the buffer:\n' .. text)
  assert(pieces >= 2, 'the answer arrived in ' .. pieces .. ' piece(s), not streamed')
  local win = vim.fn.bufwinid(buf)
  local loc = vim.fn.getloclist(win)
  assert(#loc > 0, 'no sources in the location list:\n' .. text)
  local src = vim.api.nvim_buf_get_name(loc[1].bufnr)
  assert(src == short .. '/tomatoes.md', 'the source is ' .. src)
  assert(file_line(src, loc[1].lnum) == '# Tomatoes', 'the source line is ' .. loc[1].lnum)
  -- <CR> on a source line opens that note at that line.
  vim.api.nvim_set_current_win(win)
  for i, line in ipairs(lines) do
    if line:find(src, 1, true) == 1 then
      vim.api.nvim_win_set_cursor(win, { i, 0 })
      break
    end
  end
  vim.cmd('execute "normal \\<CR>"')
  assert(vim.api.nvim_buf_get_name(0) == src, 'enter opened ' .. vim.api.nvim_buf_get_name(0))
  assert(vim.fn.line('.') == loc[1].lnum, 'enter landed on line ' .. vim.fn.line('.'))
end)

case('MemdStatus shows the vault', function()
  vim.cmd('MemdStatus')
  wait_for('the status message', function() return vim.fn.execute('messages'):find(vault, 1, true) ~= nil end)
end)

-- The LSP cases: `memctl lsp` attached by the plugin to a markdown buffer.
local function lsp_buffer(path)
  vim.cmd('edit ' .. vim.fn.fnameescape(path))
  vim.bo.filetype = 'markdown'
  local buf = vim.api.nvim_get_current_buf()
  wait_for('memctl lsp to attach', function()
    for _, c in pairs(vim.lsp.buf_get_clients(buf)) do
      if c.name == 'memd' and c.initialized ~= false and c.server_capabilities then return true end
    end
    return false
  end)
  return buf
end

-- request sends one LSP request at (row, col), 0-based, and returns the results.
local function request(buf, method, row, col)
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
    position = { line = row, character = col },
  }
  local res = vim.lsp.buf_request_sync(buf, method, params, timeout)
  assert(res, method .. ' got no answer')
  local out = {}
  for _, r in pairs(res) do
    assert(not r.err, method .. ': ' .. vim.inspect(r.err))
    table.insert(out, r.result)
  end
  return out
end

if os.getenv('MEMD_TEST_LSP') then
  case('LSP completion inside [[ offers a note title from the index', function()
    local buf = lsp_buffer(vault .. '/journal/Weekly review.md')
    local last = vim.api.nvim_buf_line_count(buf)
    vim.api.nvim_buf_set_lines(buf, last, last, false, { 'See [[Tom' })
    local labels = {}
    for _, result in ipairs(request(buf, 'textDocument/completion', last, #'See [[Tom')) do
      for _, item in ipairs(result.items or result) do
        table.insert(labels, item.label)
      end
    end
    assert(vim.tbl_contains(labels, 'Tomatoes'), 'completion offered ' .. vim.inspect(labels))
  end)

  case('LSP hover on a wikilink shows the linked note', function()
    local buf = lsp_buffer(vault .. '/garden/Garden plan.md')
    local row = vim.fn.search('\\[\\[Tomatoes\\]\\]') - 1
    local col = vim.fn.getline(row + 1):find('Tomatoes', 1, true) -- inside the link
    local shown = {}
    for _, result in ipairs(request(buf, 'textDocument/hover', row, col)) do
      local c = result.contents
      table.insert(shown, type(c) == 'string' and c or c.value or vim.inspect(c))
    end
    local text = table.concat(shown, '\n')
    assert(text:find('San Marzano', 1, true), 'hover showed:\n' .. text)
  end)
end

if failed > 0 then
  log(failed .. ' Neovim case(s) failed')
  vim.cmd('cquit 1')
end
vim.cmd('qall!')
