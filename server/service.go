package server

import (
	"context"

	"github.com/memd-dev/memd"
)

// Service is what the server answers from; *memory.Service implements it,
// and cmd/memd hands it over.
// Errors wrapping memd.ErrBadRequest, ErrNotFound, ErrUnknownFolder,
// ErrUnavailable and ErrBusy become 400, 404, 404, 503 and 429 answers.
type Service interface {
	Recall(ctx context.Context, r memd.RecallRequest) (memd.RecallResult, error)
	Status(ctx context.Context) (memd.Status, error)
	AddFolder(ctx context.Context, path string) (memd.FolderStatus, error)
	RemoveFolder(ctx context.Context, path string) error
	Folders(ctx context.Context) ([]memd.FolderStatus, error)
	Note(ctx context.Context, path string) (memd.NoteDetail, error)
	Forget(ctx context.Context, path string) error
	Reindex(ctx context.Context, path string) (int, error) // "" = all; returns jobs queued
	Skips(ctx context.Context) ([]memd.Skip, error)
	Compact(ctx context.Context) (memd.CompactResult, error) // gives the store's free space back to the disk
	Subscribe(ctx context.Context) <-chan memd.Event         // closed when ctx ends
	WaitIdle(ctx context.Context) error                      // returns when no indexing work is pending

	// What editors ask while a note is written: names for link completion,
	// tags, where links lead and what links here, and a note's text.
	Names(ctx context.Context, r memd.NamesRequest) (memd.NamesResult, error)
	Tags(ctx context.Context, r memd.TagsRequest) (memd.TagsResult, error)
	Resolve(ctx context.Context, r memd.ResolveRequest) (memd.ResolveResult, error)
	Backlinks(ctx context.Context, path, heading string) (memd.BacklinksResult, error)
	NoteText(ctx context.Context, path string, start, end int) (memd.NoteText, error)

	// Chat streams events to sink (sources first, then text) and returns
	// the whole answer; see memory.Service.Chat. A *memd.BusyError
	// becomes 429 with Retry-After.
	Chat(ctx context.Context, r memd.ChatRequest, sink func(memd.ChatEvent) error) (memd.ChatResult, error)
	// Complete continues a raw prompt (no template, no memory), streaming
	// the text to sink when it is not nil; see memory.Service.Complete.
	Complete(ctx context.Context, r memd.CompletionRequest, sink func(string) error) (memd.CompletionResult, error)
	Embed(ctx context.Context, texts []string) (memd.EmbedResult, error)
	Models(ctx context.Context) ([]memd.Model, error)
}
