package lsp

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/memd-dev/memd"
)

// symbolHits is how many recall hits a workspace symbol query lists;
// relatedHits how many related notes the command returns.
const (
	symbolHits  = 30
	relatedHits = 10
)

// workspaceSymbol recalls the query: each hit is a symbol at its note's
// line span, named by its heading path and first words.
func (s *Server) workspaceSymbol(ctx context.Context, p params) (any, error) {
	var wp workspaceSymbolParams
	if err := p.decode(&wp); err != nil {
		return nil, err
	}
	out := []SymbolInformation{}
	if strings.TrimSpace(wp.Query) == "" {
		return out, nil
	}
	ctx, cancel := context.WithTimeout(ctx, searchTimeout)
	defer cancel()
	mem := s.link.get(ctx)
	if mem == nil {
		return out, nil
	}
	res, err := mem.Recall(ctx, memd.RecallRequest{Query: clip(wp.Query, maxQuery), K: symbolHits})
	s.link.failed(mem, err)
	if err != nil {
		return nil, err
	}
	for _, h := range res.Hits {
		out = append(out, SymbolInformation{
			Name: symbolName(h), Kind: symbolString,
			Location:      Location{URI: uriOf(h.Path), Range: spanRange(h)},
			ContainerName: folderRel(h),
		})
	}
	return out, nil
}

// symbolName is a hit's heading path and first words: "Setup › Install:
// run the script first…".
func symbolName(h memd.Hit) string {
	words := firstWords(h.Text, 10)
	path := h.Heading
	if len(path) == 0 && h.Title != "" {
		path = []string{h.Title}
	}
	if len(path) == 0 {
		return words
	}
	return strings.Join(path, " › ") + ": " + words
}

// spanRange covers a hit's lines whole.
func spanRange(h memd.Hit) Range {
	return Range{Start: Position{Line: max(h.StartLine-1, 0)}, End: Position{Line: max(h.EndLine, 1)}}
}

// codeAction offers "memd: related notes" on any note buffer.
func (s *Server) codeAction(ctx context.Context, p params) (any, error) {
	var cp codeActionParams
	if err := p.decode(&cp); err != nil {
		return nil, err
	}
	d := s.docs.get(cp.TextDocument.URI)
	if d == nil || !isNote(d.path) {
		return []CodeAction{}, nil
	}
	title := "memd: related notes"
	return []CodeAction{{Title: title, Command: &Command{Title: title, Command: CommandRelated,
		Arguments: []any{relatedArgs{URI: cp.TextDocument.URI, Range: cp.Range}}}}}, nil
}

func (s *Server) executeCommand(ctx context.Context, p params) (any, error) {
	var ep executeCommandParams
	if err := p.decode(&ep); err != nil {
		return nil, err
	}
	if ep.Command != CommandRelated {
		return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidParams, Message: "no command " + ep.Command + "; memd runs " + CommandRelated}
	}
	var args relatedArgs
	if len(ep.Arguments) != 1 || json.Unmarshal(ep.Arguments[0], &args) != nil || args.URI == "" {
		return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidParams, Message: CommandRelated + ` takes one argument, {"uri":…,"range":…}`}
	}
	ctx, cancel := context.WithTimeout(ctx, searchTimeout)
	defer cancel()
	return s.related(ctx, args)
}

// related recalls with the selection, or the paragraph at the range's
// start when nothing is selected, and returns the hits outside the note.
func (s *Server) related(ctx context.Context, args relatedArgs) ([]Location, error) {
	out := []Location{}
	d := s.docs.get(args.URI)
	if d == nil {
		return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidParams, Message: args.URI + " is not open; open it first"}
	}
	enc := s.encoding()
	query := ""
	if args.Range.Start != args.Range.End {
		query = selection(d, args.Range, enc)
	}
	if strings.TrimSpace(query) == "" {
		first, last := paragraph(d.lines, args.Range.Start.Line)
		query = strings.Join(d.lines[max(first, 0):min(last+1, len(d.lines))], "\n")
	}
	if strings.TrimSpace(query) == "" {
		return out, nil
	}
	mem := s.link.get(ctx)
	if mem == nil {
		return out, nil
	}
	res, err := mem.Recall(ctx, memd.RecallRequest{Query: clip(query, maxQuery), K: 3 * relatedHits})
	s.link.failed(mem, err)
	if err != nil {
		return nil, err
	}
	for _, h := range res.Hits {
		if h.Path != d.path && len(out) < relatedHits {
			out = append(out, Location{URI: uriOf(h.Path), Range: spanRange(h)})
		}
	}
	return out, nil
}

// folderRel is a hit's path within its folder, which the hit names.
func folderRel(h memd.Hit) string {
	if rel, err := filepath.Rel(h.Folder, h.Path); err == nil && h.Folder != "" {
		return rel
	}
	return h.Path
}
