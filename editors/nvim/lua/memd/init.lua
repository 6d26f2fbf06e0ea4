-- memd for Neovim: recall, related notes, chat and status through memctl,
-- and `memctl lsp` as the language server of note buffers.
--
-- Everything goes through the memctl command, so the plugin finds the
-- daemon where memctl does (its config file, MEMD_SOCKET, --socket) and
-- starts it when none answers. It uses nothing beyond Neovim itself and
-- runs on Neovim 0.7.2 (Debian 12) as on current releases.
local M = {}

M.config = {
  -- memctl and any arguments it always needs, e.g. { 'memctl', '--socket', '/tmp/memd.sock' }.
  cmd = { 'memctl' },
  -- Buffers of these filetypes get `memctl lsp` attached; false turns the LSP off.
  lsp_filetypes = { 'markdown', 'org', 'text' },
  -- How many hits :MemdRecall and :MemdRelated ask for (0: memd's default).
  k = 0,
  -- Extra arguments of `memctl chat`, e.g. { '--max-tokens', '400', '--folder', '~/notes' }.
  chat_args = {},
}

local function memctl(args)
  local cmd = vim.deepcopy(M.config.cmd)
  vim.list_extend(cmd, args)
  return cmd
end

local function notify(msg, level)
  vim.schedule(function()
    vim.notify('memd: ' .. msg, level or vim.log.levels.INFO)
  end)
end

-- run starts memctl with args and calls done(stdout_text) when it succeeds;
-- a failure is reported with what memctl wrote to stderr.
local function run(args, done)
  local out, err = {}, {}
  local id = vim.fn.jobstart(memctl(args), {
    stdout_buffered = true,
    stderr_buffered = true,
    on_stdout = function(_, data) out = data end,
    on_stderr = function(_, data) err = data end,
    on_exit = function(_, code)
      if code ~= 0 then
        local msg = vim.trim(table.concat(err, '\n')):gsub('^memctl: ', '')
        notify(msg ~= '' and msg or ('memctl exited with status ' .. code), vim.log.levels.ERROR)
        return
      end
      vim.schedule(function() done(table.concat(out, '\n')) end)
    end,
  })
  if id <= 0 then
    notify('cannot run ' .. M.config.cmd[1] .. '; is memctl installed and on PATH?', vim.log.levels.ERROR)
  end
  return id
end

-- real is a file's path as memd knows it: absolute, symlinks resolved.
local function real(path)
  if path == '' then return '' end
  return vim.loop.fs_realpath(path) or vim.fn.fnamemodify(path, ':p')
end

-- hit_text is the one line the quickfix list shows for a hit.
local function hit_text(hit)
  local first = ''
  for line in (hit.text or ''):gmatch('[^\n]+') do
    if vim.trim(line) ~= '' then first = vim.trim(line) break end
  end
  if hit.heading and #hit.heading > 0 then
    return table.concat(hit.heading, ' > ') .. ': ' .. first
  end
  return first
end

-- recall asks memd for query and puts the hits (minus those in the file
-- exclude) into the quickfix list, titled title.
local function recall(query, title, exclude)
  local args = { '--json', 'recall' }
  if M.config.k and M.config.k > 0 then vim.list_extend(args, { '-k', tostring(M.config.k) }) end
  table.insert(args, '--')
  table.insert(args, query)
  return run(args, function(text)
    local ok, res = pcall(vim.fn.json_decode, text)
    if not ok or type(res) ~= 'table' then
      notify('memctl recall printed something that is not JSON: ' .. text:sub(1, 200), vim.log.levels.ERROR)
      return
    end
    local items = {}
    for _, hit in ipairs(res.hits or {}) do
      if hit.path ~= exclude then
        table.insert(items, { filename = hit.path, lnum = hit.start_line, end_lnum = hit.end_line, text = hit_text(hit) })
      end
    end
    vim.fn.setqflist({}, ' ', { title = title, items = items })
    if #items == 0 then
      notify('nothing in your notes matches')
      return
    end
    vim.cmd('copen')
  end)
end

--- :MemdRecall {query}: the best passages of your notes in the quickfix list.
function M.recall(query)
  if vim.trim(query or '') == '' then
    notify('say what to recall: :MemdRecall {query}', vim.log.levels.WARN)
    return
  end
  return recall(query, 'memd recall: ' .. query)
end

-- paragraph returns the lines of the paragraph around the cursor.
local function paragraph()
  local lnum, last = vim.fn.line('.'), vim.fn.line('$')
  local blank = function(n) return vim.fn.getline(n):match('^%s*$') ~= nil end
  local first, stop = lnum, lnum
  while first > 1 and not blank(first - 1) do first = first - 1 end
  while stop < last and not blank(stop + 1) do stop = stop + 1 end
  return vim.api.nvim_buf_get_lines(0, first - 1, stop, false)
end

--- :MemdRelated: notes related to the paragraph under the cursor, or to the
--- lines given as a range (a visual selection), excluding this note.
function M.related(line1, line2)
  local lines
  if line1 and line2 then
    lines = vim.api.nvim_buf_get_lines(0, line1 - 1, line2, false)
  else
    lines = paragraph()
  end
  local query = vim.trim(table.concat(lines, ' '))
  if query == '' then
    notify('the cursor is on an empty paragraph; put it on some text or select some', vim.log.levels.WARN)
    return
  end
  return recall(query, 'memd related', real(vim.api.nvim_buf_get_name(0)))
end

-- source_at returns the path and line of a "path:line: …" source line.
local function source_at(line)
  local path, lnum = line:match('^(.-):(%d+): %[%d+%]')
  if path then return path, tonumber(lnum) end
end

-- chat_buffer returns the scratch buffer of chat answers, shown in a window.
local function chat_buffer()
  local buf = vim.fn.bufnr('memd://chat')
  if buf < 0 or not vim.api.nvim_buf_is_valid(buf) then
    buf = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_name(buf, 'memd://chat')
    vim.api.nvim_buf_set_option(buf, 'filetype', 'markdown')
    vim.api.nvim_buf_set_keymap(buf, 'n', '<CR>', '', {
      noremap = true,
      desc = 'open the source under the cursor',
      callback = function() M.open_source() end,
    })
  end
  if vim.fn.bufwinid(buf) < 0 then
    vim.cmd('botright split')
    vim.api.nvim_win_set_buf(0, buf)
  end
  return buf
end

--- Opens the `path:line` source under the cursor of the chat buffer.
function M.open_source()
  local path, lnum = source_at(vim.api.nvim_get_current_line())
  if not path then
    notify('the cursor is not on a source line (path:line: [n] …)', vim.log.levels.WARN)
    return
  end
  vim.cmd('wincmd p')
  vim.cmd('edit ' .. vim.fn.fnameescape(path))
  vim.api.nvim_win_set_cursor(0, { lnum, 0 })
end

--- :MemdChat {question}: the answer streams into the memd://chat buffer as
--- memd writes it; the sources follow as `path:line` lines (<CR> opens one)
--- and fill the location list of the chat window.
function M.chat(question)
  if vim.trim(question or '') == '' then
    notify('ask something: :MemdChat {question}', vim.log.levels.WARN)
    return
  end
  local buf = chat_buffer()
  local win = vim.fn.bufwinid(buf)
  local start = vim.api.nvim_buf_line_count(buf)
  if start == 1 and vim.api.nvim_buf_get_lines(buf, 0, 1, false)[1] == '' then
    start = 0
  end
  vim.api.nvim_buf_set_lines(buf, start, -1, false, { '> ' .. question, '', '' })
  local err = {}
  -- on_stdout's first element continues the last line written.
  local append = function(_, data)
    if not vim.api.nvim_buf_is_valid(buf) then return end
    local last = vim.api.nvim_buf_line_count(buf)
    local tail = vim.api.nvim_buf_get_lines(buf, last - 1, last, false)[1]
    data[1] = tail .. data[1]
    vim.api.nvim_buf_set_lines(buf, last - 1, last, false, data)
    if vim.api.nvim_win_is_valid(win) then
      vim.api.nvim_win_set_cursor(win, { vim.api.nvim_buf_line_count(buf), 0 })
    end
  end
  local args = { 'chat' }
  vim.list_extend(args, M.config.chat_args or {})
  vim.list_extend(args, { '--', question })
  local id = vim.fn.jobstart(memctl(args), {
    on_stdout = append,
    on_stderr = function(_, data) vim.list_extend(err, data) end,
    on_exit = function(_, code)
      vim.schedule(function()
        vim.b[buf].memd_chat_done = (vim.b[buf].memd_chat_done or 0) + 1
        if code ~= 0 then
          local msg = vim.trim(table.concat(err, '\n')):gsub('^memctl: ', '')
          append(nil, { '', '(memd: ' .. (msg ~= '' and msg or 'chat failed') .. ')', '' })
          return
        end
        local items = {}
        for _, line in ipairs(vim.api.nvim_buf_get_lines(buf, start, -1, false)) do
          local path, lnum = source_at(line)
          if path then table.insert(items, { filename = path, lnum = lnum, text = line }) end
        end
        if vim.api.nvim_win_is_valid(win) then
          vim.fn.setloclist(win, {}, ' ', { title = 'memd chat: ' .. question, items = items })
        end
      end)
    end,
  })
  if id <= 0 then
    notify('cannot run ' .. M.config.cmd[1] .. '; is memctl installed and on PATH?', vim.log.levels.ERROR)
  end
  return id
end

--- :MemdStatus: memd's folders, notes, pending work and models.
function M.status()
  return run({ 'status' }, function(text)
    vim.api.nvim_echo({ { vim.trim(text) } }, true, {})
  end)
end

-- lsp_config is how Neovim starts `memctl lsp`.
local function lsp_config()
  return {
    name = 'memd',
    cmd = memctl({ 'lsp' }),
    root_dir = vim.loop.cwd(),
  }
end

local client_id -- the one memctl lsp client on Neovim 0.7, which has no vim.lsp.start

--- Attaches `memctl lsp` to a buffer.
function M.attach_lsp(bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  if vim.lsp.start then
    return vim.lsp.start(lsp_config(), { bufnr = bufnr })
  end
  if not client_id or vim.lsp.get_client_by_id(client_id) == nil then
    client_id = vim.lsp.start_client(lsp_config())
  end
  if client_id then vim.lsp.buf_attach_client(bufnr, client_id) end
  return client_id
end

local group = vim.api.nvim_create_augroup('memd', { clear = true })

-- register_lsp attaches memctl lsp to buffers of the configured filetypes,
-- open ones included.
local function register_lsp()
  vim.api.nvim_clear_autocmds({ group = group })
  local fts = M.config.lsp_filetypes
  if not fts or #fts == 0 then return end
  vim.api.nvim_create_autocmd('FileType', {
    group = group,
    pattern = fts,
    callback = function(ev) M.attach_lsp(ev.buf) end,
  })
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(buf) and vim.tbl_contains(fts, vim.bo[buf].filetype) then
      M.attach_lsp(buf)
    end
  end
end

--- setup({cmd=…, lsp_filetypes=…, k=…}): settings beside the defaults. The
--- plugin works without it, with memctl on PATH.
function M.setup(opts)
  M.config = vim.tbl_deep_extend('force', M.config, opts or {})
  if opts and opts.cmd then M.config.cmd = opts.cmd end -- a list replaces, not merges
  if opts and opts.chat_args then M.config.chat_args = opts.chat_args end
  if opts and opts.lsp_filetypes ~= nil then M.config.lsp_filetypes = opts.lsp_filetypes end
  register_lsp()
end

M._register_lsp = register_lsp

return M
