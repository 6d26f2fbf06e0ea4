package api

import (
	"context"

	"github.com/memd-dev/memd/memory"
)

// Service is what the server answers from; *memory.Service implements it.
// Errors wrapping memory.ErrBadRequest, ErrNotFound, ErrUnknownFolder,
// ErrUnavailable and ErrBusy become 400, 404, 404, 503 and 429 answers.
type Service interface {
	Recall(ctx context.Context, r memory.RecallRequest) (memory.RecallResult, error)
	Status(ctx context.Context) (memory.Status, error)
	AddFolder(ctx context.Context, path string) (memory.FolderStatus, error)
	RemoveFolder(ctx context.Context, path string) error
	Folders(ctx context.Context) ([]memory.FolderStatus, error)
	Note(ctx context.Context, path string) (memory.NoteDetail, error)
	Forget(ctx context.Context, path string) error
	Reindex(ctx context.Context, path string) (int, error) // "" = all; returns jobs queued
	Skips(ctx context.Context) ([]memory.Skip, error)

	// What editors ask while a note is written: names for link completion,
	// tags, where links lead and what links here, and a note's text.
	Names(ctx context.Context, r memory.NamesRequest) (memory.NamesResult, error)
	Tags(ctx context.Context, r memory.TagsRequest) (memory.TagsResult, error)
	Resolve(ctx context.Context, r memory.ResolveRequest) (memory.ResolveResult, error)
	Backlinks(ctx context.Context, path, heading string) (memory.BacklinksResult, error)
	NoteText(ctx context.Context, path string, start, end int) (memory.NoteText, error)
	Subscribe(ctx context.Context) <-chan memory.Event // closed when ctx ends
	WaitIdle(ctx context.Context) error                // returns when no indexing work is pending

	// Chat streams events to sink (sources first, then text) and returns
	// the whole answer; see memory.Service.Chat. A *memory.BusyError
	// becomes 429 with Retry-After.
	Chat(ctx context.Context, r memory.ChatRequest, sink func(memory.ChatEvent) error) (memory.ChatResult, error)
	Embed(ctx context.Context, texts []string) (memory.EmbedResult, error)
	Models(ctx context.Context) ([]memory.Model, error)
}
