package lsp

import "encoding/json"

// The subset of LSP 3.17 that memd's server reads and writes. Field names
// and numbers are the specification's.

// Position is a place in a buffer: a 0-based line and a character offset
// counted in the encoding the server and editor agreed on.
type Position struct {
	Line      int `json:"line"`      // 0-based
	Character int `json:"character"` // 0-based, in the negotiated encoding
}

// Range is a span of a buffer, End excluded.
type Range struct {
	Start Position `json:"start"`
	End   Position `json:"end"`
}

// Location is a range in a file, by its URI.
type Location struct {
	URI   string `json:"uri"`
	Range Range  `json:"range"`
}

// TextDocumentIdentifier names a buffer by its URI.
type TextDocumentIdentifier struct {
	URI string `json:"uri"`
}

// TextDocumentPositionParams are the params of a request about one place
// in a buffer.
type TextDocumentPositionParams struct {
	TextDocument TextDocumentIdentifier `json:"textDocument"`
	Position     Position               `json:"position"`
}

type initializeParams struct {
	ProcessID    *int `json:"processId"`
	Capabilities struct {
		General struct {
			PositionEncodings []string `json:"positionEncodings"`
		} `json:"general"`
	} `json:"capabilities"`
}

type initializeResult struct {
	Capabilities serverCapabilities `json:"capabilities"`
	ServerInfo   serverInfo         `json:"serverInfo"`
}

type serverInfo struct {
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
}

type serverCapabilities struct {
	PositionEncoding        string                `json:"positionEncoding"`
	TextDocumentSync        textDocumentSync      `json:"textDocumentSync"`
	HoverProvider           bool                  `json:"hoverProvider"`
	CompletionProvider      completionOptions     `json:"completionProvider"`
	DefinitionProvider      bool                  `json:"definitionProvider"`
	ReferencesProvider      bool                  `json:"referencesProvider"`
	WorkspaceSymbolProvider bool                  `json:"workspaceSymbolProvider"`
	CodeActionProvider      bool                  `json:"codeActionProvider"`
	ExecuteCommandProvider  executeCommandOptions `json:"executeCommandProvider"`
}

type textDocumentSync struct {
	OpenClose bool        `json:"openClose"`
	Change    int         `json:"change"` // 1: the whole text on every change
	Save      saveOptions `json:"save"`
}

type saveOptions struct {
	IncludeText bool `json:"includeText"`
}

const syncFull = 1

type completionOptions struct {
	TriggerCharacters []string `json:"triggerCharacters"`
}

type executeCommandOptions struct {
	Commands []string `json:"commands"`
}

type didOpenParams struct {
	TextDocument struct {
		URI        string `json:"uri"`
		LanguageID string `json:"languageId"`
		Version    int    `json:"version"`
		Text       string `json:"text"`
	} `json:"textDocument"`
}

type didChangeParams struct {
	TextDocument struct {
		URI     string `json:"uri"`
		Version int    `json:"version"`
	} `json:"textDocument"`
	// With full sync each change holds the whole text; a change with a
	// range (sent by a client that ignores the sync kind) is applied to it.
	ContentChanges []struct {
		Range *Range `json:"range,omitempty"`
		Text  string `json:"text"`
	} `json:"contentChanges"`
}

type didSaveParams struct {
	TextDocument TextDocumentIdentifier `json:"textDocument"`
	Text         *string                `json:"text,omitempty"`
}

type didCloseParams struct {
	TextDocument TextDocumentIdentifier `json:"textDocument"`
}

type cancelParams struct {
	ID json.RawMessage `json:"id"`
}

// hoverParams may carry a Range beside the position: not in 3.17, but a
// client that sends the selection this way gets recall on the phrase.
type hoverParams struct {
	TextDocumentPositionParams
	Range *Range `json:"range,omitempty"`
}

// Hover is the answer of textDocument/hover.
type Hover struct {
	Contents MarkupContent `json:"contents"`
	Range    *Range        `json:"range,omitempty"`
}

// MarkupContent is text for the editor to show, in Markdown or plain.
type MarkupContent struct {
	Kind  string `json:"kind"` // "markdown" or "plaintext"
	Value string `json:"value"`
}

// CompletionList is the answer of textDocument/completion; IsIncomplete
// asks the editor to ask again as the user types.
type CompletionList struct {
	IsIncomplete bool             `json:"isIncomplete"`
	Items        []CompletionItem `json:"items"`
}

// CompletionItem is one completion, inserted by its TextEdit.
type CompletionItem struct {
	Label      string    `json:"label"`
	Kind       int       `json:"kind,omitempty"`
	Detail     string    `json:"detail,omitempty"`
	SortText   string    `json:"sortText,omitempty"`
	FilterText string    `json:"filterText,omitempty"`
	TextEdit   *TextEdit `json:"textEdit,omitempty"`
}

// CompletionItemKind values memd uses.
const (
	kindKeyword = 14
	kindFile    = 17
)

// TextEdit replaces Range with NewText.
type TextEdit struct {
	Range   Range  `json:"range"`
	NewText string `json:"newText"`
}

type referenceParams struct {
	TextDocumentPositionParams
}

type workspaceSymbolParams struct {
	Query string `json:"query"`
}

// SymbolInformation is one answer of workspace/symbol: here, a passage
// of a note that recall found.
type SymbolInformation struct {
	Name          string   `json:"name"`
	Kind          int      `json:"kind"`
	Location      Location `json:"location"`
	ContainerName string   `json:"containerName,omitempty"`
}

// symbolString is SymbolKind.String: a passage of text.
const symbolString = 15

type codeActionParams struct {
	TextDocument TextDocumentIdentifier `json:"textDocument"`
	Range        Range                  `json:"range"`
}

// CodeAction is an action the editor offers; memd's run a Command.
type CodeAction struct {
	Title   string   `json:"title"`
	Command *Command `json:"command,omitempty"`
}

// Command is a command the server executes (workspace/executeCommand).
type Command struct {
	Title     string `json:"title"`
	Command   string `json:"command"`
	Arguments []any  `json:"arguments,omitempty"`
}

type executeCommandParams struct {
	Command   string            `json:"command"`
	Arguments []json.RawMessage `json:"arguments"`
}

// relatedArgs is the argument of the memd.related command.
type relatedArgs struct {
	URI   string `json:"uri"`
	Range Range  `json:"range"`
}

// Diagnostic is a message about a range of a buffer; memd's are hints.
type Diagnostic struct {
	Range    Range  `json:"range"`
	Severity int    `json:"severity"`
	Code     string `json:"code,omitempty"`
	Source   string `json:"source"`
	Message  string `json:"message"`
}

const severityHint = 4

type publishDiagnosticsParams struct {
	URI         string       `json:"uri"`
	Version     *int         `json:"version,omitempty"`
	Diagnostics []Diagnostic `json:"diagnostics"`
}

type showMessageParams struct {
	Type    int    `json:"type"`
	Message string `json:"message"`
}

// MessageType values.
const (
	messageError   = 1
	messageWarning = 2
	messageInfo    = 3
)
