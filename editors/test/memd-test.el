;;; memd-test.el --- memd.el against a real memd  -*- lexical-binding: t -*-

;; editors/test/run.sh starts memd on a copy of examples/vault
;; (MEMD_TEST_VAULT) and a folder of short notes for the generated chat
;; model (MEMD_TEST_SHORT), then runs these with emacs --batch.

;;; Code:

(require 'ert)
(require 'package)
;; Debian's elpa-eglot lives in the system package directory, which -Q
;; leaves out; Emacs 29 and later have eglot built in.
(add-to-list 'package-directory-list "/usr/share/emacs/site-lisp/elpa")
(package-initialize)
(require (quote cl-lib))
(require (quote memd))

(defvar memd-test-vault (getenv "MEMD_TEST_VAULT"))
(defvar memd-test-short (getenv "MEMD_TEST_SHORT"))

(defun memd-test--file-line (path line)
  "The text of LINE of PATH."
  (with-temp-buffer
    (insert-file-contents path)
    (goto-char (point-min))
    (forward-line (1- line))
    (buffer-substring-no-properties (line-beginning-position) (line-end-position))))

(defun memd-test--xref-file+line (xref)
  (let ((loc (xref-item-location xref)))
    (cons (xref-location-group loc) (xref-location-line loc))))

(defun memd-test--wait (what pred)
  "Wait up to 60 seconds for PRED, failing with WHAT."
  (let ((deadline (+ (float-time) 60)))
    (while (and (not (funcall pred)) (< (float-time) deadline))
      (accept-process-output nil 0.05))
    (unless (funcall pred) (ert-fail (format "timed out waiting for %s" what)))))

(ert-deftest memd-recall-lands-in-xref ()
  "memd-recall shows the note and line memd found in an xref buffer."
  (let* ((xrefs (memd-recall-xrefs "when should I water the tomatoes"))
         (first (memd-test--xref-file+line (car xrefs)))
         (want (expand-file-name "garden/Tomatoes.md" memd-test-vault)))
    (should (equal (car first) want))
    (should (equal (memd-test--file-line want (cdr first)) "# Tomatoes"))
    (memd-recall "when should I water the tomatoes")
    (let ((xbuf (get-buffer "*xref*")))
      (should xbuf)
      (with-current-buffer xbuf
        (should (string-match-p "Tomatoes.md" (buffer-string)))
        ;; Visiting the first item lands on the hit.
        (goto-char (point-min))
        (xref-next-line)
        (xref-goto-xref)))
    (with-current-buffer (window-buffer (selected-window))
      (should (equal (buffer-file-name) want))
      (should (= (line-number-at-pos) (cdr first))))))

(ert-deftest memd-related-leaves-out-the-note ()
  "memd-related recalls the paragraph at point, without the note itself."
  (let ((here (expand-file-name "kitchen/Baking troubleshooting.md" memd-test-vault))
        shown)
    (with-current-buffer (find-file-noselect here)
      (goto-char (point-min))
      (search-forward "Under-fermented")
      (cl-letf (((symbol-function 'memd--show) (lambda (xrefs _) (setq shown xrefs))))
        (call-interactively #'memd-related))
      (should shown)
      (should (equal (car (memd-test--xref-file+line (car shown)))
                     (expand-file-name "kitchen/Sourdough.md" memd-test-vault)))
      (should-not (member here (mapcar (lambda (x) (car (memd-test--xref-file+line x))) shown))))))

(ert-deftest memd-chat-streams-into-a-buffer ()
  "memd-chat writes the answer as it arrives, then buttons for its sources."
  (let ((memd-chat-args (list "--folder" memd-test-short "--max-tokens" "60"))
        (pieces 0) done)
    (when (get-buffer memd-chat-buffer) (kill-buffer memd-chat-buffer))
    (let ((memd-chat-done-hook (list (lambda () (setq done t)))))
      (memd-chat "water tomatoes?")
      (with-current-buffer memd-chat-buffer
        (add-hook 'after-change-functions
                  (lambda (&rest _) (unless done (setq pieces (1+ pieces)))) nil t))
      (memd-test--wait "the answer" (lambda () done)))
    (with-current-buffer memd-chat-buffer
      (let ((text (buffer-string)))
        (should (string-match-p (regexp-quote "> water tomatoes?\n\nwater is good[1]. water is good[1].") text))
        (should (>= pieces 2))
        ;; The source line is a button that opens the note at its line.
        (goto-char (point-min))
        (should (re-search-forward memd--source-regexp nil t))
        (let ((source (get-text-property (match-beginning 0) 'memd-source)))
          (should (equal (car source) (expand-file-name "tomatoes.md" memd-test-short)))
          (push-button (match-beginning 0))
          (should (equal (buffer-file-name) (car source)))
          (should (= (line-number-at-pos) (cdr source)))
          (should (equal (memd-test--file-line (car source) (cdr source)) "# Tomatoes")))))))

(ert-deftest memd-status-names-the-vault ()
  (memd-status)
  (with-current-buffer "*memd-status*"
    (should (string-match-p (regexp-quote memd-test-vault) (buffer-string)))))

;;; The language server, through eglot, once memctl has an lsp command.

(defun memd-test--eglot-buffer (path)
  "Visit PATH in text-mode with eglot connected to memctl lsp."
  (require 'eglot)
  (let ((buf (find-file-noselect path)))
    (with-current-buffer buf
      (text-mode)
      ;; What M-x eglot does, without the question; eglot-ensure would
      ;; wait for a command loop that batch mode never runs.
      (apply #'eglot (eglot--guess-contact))
      (memd-test--wait "eglot to connect" (lambda () (eglot-current-server))))
    buf))

(defun memd-test--request (method line col)
  "Send METHOD at LINE and COL (0-based) and return the result."
  (jsonrpc-request (eglot-current-server) method
                   (list :textDocument (list :uri (funcall (if (fboundp 'eglot-path-to-uri) 'eglot-path-to-uri 'eglot--path-to-uri)
                                                           (buffer-file-name)))
                         :position (list :line line :character col))))

(when (getenv "MEMD_TEST_LSP")
  (ert-deftest memd-lsp-completes-a-wikilink ()
    (with-current-buffer (memd-test--eglot-buffer
                          (expand-file-name "journal/Weekly review.md" memd-test-vault))
      (goto-char (point-max))
      (insert "See [[Tom")
      (eglot--signal-textDocument/didChange)
      (let* ((res (memd-test--request :textDocument/completion
                                      (1- (line-number-at-pos)) (length "See [[Tom")))
             (items (if (vectorp res) res (plist-get res :items)))
             (labels (mapcar (lambda (i) (plist-get i :label)) items)))
        (should (member "Tomatoes" labels)))))

  (ert-deftest memd-lsp-hover-shows-the-linked-note ()
    (with-current-buffer (memd-test--eglot-buffer
                          (expand-file-name "garden/Garden plan.md" memd-test-vault))
      (goto-char (point-min))
      (search-forward "[[Tomatoes]]")
      (let* ((res (memd-test--request :textDocument/hover
                                      (1- (line-number-at-pos)) (- (current-column) 4)))
             (contents (plist-get res :contents))
             (text (if (stringp contents) contents (format "%s" contents))))
        (should (string-match-p "San Marzano" text))))))

;;; memd-test.el ends here
