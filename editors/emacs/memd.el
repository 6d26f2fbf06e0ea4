;;; memd.el --- Recall, related notes and chat from memd, your notes' memory  -*- lexical-binding: t -*-

;; Version: 0.1.0
;; Package-Requires: ((emacs "28.1"))
;; Keywords: outlines, hypermedia, tools
;; URL: https://github.com/memd-dev/memd

;;; Commentary:

;; memd is a local daemon that indexes folders of notes and answers
;; recall: which passages of my notes answer this?  This package asks it
;; through the memctl command, so it finds the daemon where memctl does
;; (config file, MEMD_SOCKET, --socket) and starts it when none answers.
;;
;;   M-x memd-recall    the best passages for a query, in an xref buffer
;;   M-x memd-related   notes related to the region or the paragraph at point
;;   M-x memd-chat      ask your notes; the answer streams into *memd-chat*
;;   M-x memd-status    the daemon's folders, notes and models
;;
;; With eglot (built in since Emacs 29; the elpa-eglot package on Debian
;; 12's Emacs 28), `memd-eglot-setup' registers `memctl lsp' for Markdown,
;; Org and text buffers: link and tag completion, hover, definitions,
;; backlinks, and the symbol search as recall.  M-x eglot starts it.

;;; Code:

(require 'json)
(require 'xref)

(defgroup memd nil
  "Recall, related notes and chat from memd."
  :group 'tools
  :prefix "memd-")

(defcustom memd-program "memctl"
  "The memctl command."
  :type 'string)

(defcustom memd-program-args nil
  "Arguments memctl always gets, such as (\"--socket\" \"/tmp/memd.sock\")."
  :type '(repeat string))

(defcustom memd-recall-k 0
  "How many hits recall asks for; 0 is memd's default."
  :type 'integer)

(defcustom memd-chat-args nil
  "Extra arguments of `memctl chat', such as (\"--max-tokens\" \"400\")."
  :type '(repeat string))

(defcustom memd-lsp-modes '(markdown-mode gfm-mode org-mode text-mode)
  "Major modes whose buffers `memctl lsp' serves under eglot."
  :type '(repeat symbol))

(defun memd--command (&rest args)
  "The memctl command line with ARGS."
  (append (list memd-program) memd-program-args args))

(defun memd--call (&rest args)
  "Run memctl with ARGS and return its output; signal its error when it fails."
  (with-temp-buffer
    (let* ((err (make-temp-file "memd-err"))
           (cmd (apply #'memd--command args))
           (status (unwind-protect
                       (apply #'call-process (car cmd) nil (list t err) nil (cdr cmd))
                     nil)))
      (unwind-protect
          (if (eql status 0)
              (buffer-string)
            (let ((msg (string-trim (with-temp-buffer
                                      (insert-file-contents err)
                                      (buffer-string)))))
              (user-error "memd: %s" (if (string-empty-p msg)
                                          (format "memctl exited with %s" status)
                                        (string-remove-prefix "memctl: " msg)))))
        (delete-file err)))))

(defun memd--recall-hits (query)
  "The hits memd recalls for QUERY, as alists (path, start_line, …)."
  (let* ((args (append '("--json" "recall")
                       (when (> memd-recall-k 0) (list "-k" (number-to-string memd-recall-k)))
                       (list "--" query)))
         (out (apply #'memd--call args))
         (res (json-parse-string out :object-type 'alist :array-type 'list)))
    (alist-get 'hits res)))

(defun memd--hit-summary (hit)
  "The line an xref buffer shows for HIT: its heading and first line."
  (let ((heading (alist-get 'heading hit))
        (first (seq-find (lambda (l) (not (string-blank-p l)))
                         (split-string (or (alist-get 'text hit) "") "\n") "")))
    (if heading
        (format "%s: %s" (string-join heading " > ") (string-trim first))
      (string-trim first))))

(defun memd-recall-xrefs (query &optional exclude)
  "Xref items of memd's hits for QUERY, without those in the file EXCLUDE."
  (let (items)
    (dolist (hit (memd--recall-hits query) (nreverse items))
      (let ((path (alist-get 'path hit)))
        (unless (equal path exclude)
          (push (xref-make (memd--hit-summary hit)
                           (xref-make-file-location path (alist-get 'start_line hit) 0))
                items))))))

(defun memd--show (xrefs what)
  "Show XREFS in an xref buffer, or say that WHAT found nothing."
  (if (null xrefs)
      (message "memd: nothing in your notes matches %s" what)
    (funcall xref-show-xrefs-function (lambda () xrefs)
             `((window . ,(selected-window))))))

;;;###autoload
(defun memd-recall (query)
  "Show the passages of your notes that best answer QUERY, in an xref buffer."
  (interactive (list (read-string "Recall: " nil 'memd-recall-history)))
  (when (string-blank-p query)
    (user-error "memd: say what to recall"))
  (memd--show (memd-recall-xrefs query) (format "%S" query)))

(defun memd--real-file ()
  "This buffer's file as memd knows it: absolute, symlinks resolved."
  (when buffer-file-name (file-truename buffer-file-name)))

;;;###autoload
(defun memd-related (beg end)
  "Show notes related to the region from BEG to END, or to the paragraph at point.
The note itself is left out."
  (interactive (if (use-region-p)
                   (list (region-beginning) (region-end))
                 (save-excursion
                   (let ((end (progn (forward-paragraph) (point))))
                     (list (progn (backward-paragraph) (point)) end)))))
  (let ((query (string-trim (replace-regexp-in-string
                             "[ \t\n]+" " " (buffer-substring-no-properties beg end)))))
    (when (string-empty-p query)
      (user-error "memd: point is on an empty paragraph; put it on some text or mark some"))
    (memd--show (memd-recall-xrefs query (memd--real-file)) "this paragraph")))

(defvar memd-chat-buffer "*memd-chat*"
  "The buffer chat answers stream into.")

(defconst memd--source-regexp "^\\(.+?\\):\\([0-9]+\\): \\[[0-9]+\\]"
  "A source line of memctl chat: path:line: [n] heading.")

(define-derived-mode memd-chat-mode special-mode "memd-chat"
  "Answers from memd; RET on a source line opens that note."
  (setq-local truncate-lines nil)
  (visual-line-mode 1))

(defun memd--buttonize-sources (from)
  "Make the source lines after FROM open their note at their line."
  (save-excursion
    (goto-char from)
    (while (re-search-forward memd--source-regexp nil t)
      (let ((path (match-string 1))
            (line (string-to-number (match-string 2))))
        (make-text-button (match-beginning 0) (line-end-position)
                          'memd-source (cons path line)
                          'help-echo "open this note"
                          'action (lambda (_) (memd--visit path line)))))))

(defun memd--visit (path line)
  "Open PATH at LINE in another window."
  (find-file-other-window path)
  (goto-char (point-min))
  (forward-line (1- line)))

(defvar memd-chat-done-hook nil
  "Run in the chat buffer when an answer is complete (or failed).")

;;;###autoload
(defun memd-chat (question)
  "Ask your notes QUESTION; the answer streams into `memd-chat-buffer'.
The sources follow as path:line lines; RET or a click opens one."
  (interactive (list (read-string "Ask your notes: " nil 'memd-chat-history)))
  (when (string-blank-p question)
    (user-error "memd: ask something"))
  (let ((buf (get-buffer-create memd-chat-buffer)))
    (with-current-buffer buf
      (unless (derived-mode-p 'memd-chat-mode) (memd-chat-mode))
      (let ((inhibit-read-only t))
        (goto-char (point-max))
        (unless (bobp) (insert "\n"))
        (insert (propertize (concat "> " question) 'face 'bold) "\n\n")))
    (display-buffer buf)
    (let* ((start (with-current-buffer buf (point-max)))
           (cmd (apply #'memd--command (append '("chat") memd-chat-args (list "--" question))))
           (stderr (generate-new-buffer " *memd-chat-stderr*")))
      (make-process
       :name "memd-chat"
       :command cmd
       :buffer buf
       :stderr stderr
       :noquery t
       :connection-type 'pipe
       :filter (lambda (proc text)
                 (when (buffer-live-p (process-buffer proc))
                   (with-current-buffer (process-buffer proc)
                     (let ((inhibit-read-only t))
                       (save-excursion
                         (goto-char (point-max))
                         (insert text))))))
       :sentinel (lambda (proc _event)
                   (unless (process-live-p proc)
                     (let ((ok (eql (process-exit-status proc) 0))
                           (err (with-current-buffer stderr (string-trim (buffer-string)))))
                       (kill-buffer stderr)
                       (when (buffer-live-p buf)
                         (with-current-buffer buf
                           (let ((inhibit-read-only t))
                             (if ok
                                 (memd--buttonize-sources start)
                               (goto-char (point-max))
                               (insert (format "\n(memd: %s)\n"
                                               (string-remove-prefix "memctl: " err)))))
                           (run-hooks 'memd-chat-done-hook))))))))))

;;;###autoload
(defun memd-status ()
  "Show memd's folders, notes, pending work and models."
  (interactive)
  (let ((out (memd--call "status")))
    (with-current-buffer (get-buffer-create "*memd-status*")
      (let ((inhibit-read-only t))
        (erase-buffer)
        (insert out))
      (special-mode)
      (display-buffer (current-buffer)))
    (message "%s" (car (split-string out "\n")))))

(defun memd-lsp-command ()
  "The command line of memd's language server."
  (memd--command "lsp"))

;;;###autoload
(defun memd-eglot-setup ()
  "Register `memctl lsp' with eglot for `memd-lsp-modes'."
  (require 'eglot)
  (add-to-list 'eglot-server-programs
               (cons memd-lsp-modes (lambda (&rest _) (memd-lsp-command)))))

;;;###autoload
(with-eval-after-load 'eglot (memd-eglot-setup))

(provide 'memd)
;;; memd.el ends here
