package apitest

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/memd-dev/memd"
)

// Service is a fake of the memory service. Hooks left nil get a plain
// answer from the fields. It is safe for concurrent use; lock Mu to read or
// change fields while a server uses it.
type Service struct {
	Mu sync.Mutex
	// Notes are the indexed notes by absolute path; Recall matches their
	// chunks' text by substring.
	Notes map[string]memd.NoteDetail
	// FolderList are the registered folders by path.
	FolderList map[string]memd.FolderStatus
	SkipList   []memd.Skip
	Pending    int
	// LastReindex and LastForget are the paths of the last such calls.
	LastReindex, LastForget string
	// ReindexHook, when set, answers Reindex (a slow reindex, a failing one).
	ReindexHook func(ctx context.Context, path string) (int, error)
	LastRecall  memd.RecallRequest

	// RecallHook, when set, answers Recall instead.
	RecallHook func(ctx context.Context, r memd.RecallRequest) (memd.RecallResult, error)
	// WaitIdleHook, when set, answers WaitIdle instead of returning nil.
	WaitIdleHook func(ctx context.Context) error

	// ChatAnswer is what Chat streams, word by word, after the sources
	// (the recall hits for the last user turn); "" makes Chat answer
	// memd.ErrUnavailable, as a daemon without a generator does.
	ChatAnswer string
	// ChatHook, when set, answers Chat instead; LastChat is the last
	// request Chat saw.
	ChatHook func(ctx context.Context, r memd.ChatRequest, sink func(memd.ChatEvent) error) (memd.ChatResult, error)
	LastChat memd.ChatRequest
	// CompleteHook answers Complete; nil answers memd.ErrUnavailable.
	CompleteHook func(ctx context.Context, r memd.CompletionRequest, sink func(string) error) (memd.CompletionResult, error)
	// EmbedHook answers Embed; nil answers memd.ErrUnavailable.
	EmbedHook func(ctx context.Context, texts []string) (memd.EmbedResult, error)
	// ModelList is what Models returns.
	ModelList []memd.Model

	// Events feeds every subscriber (each event goes to one of them).
	Events chan memd.Event
	// Unsubscribed gets a value each time a subscription ends.
	Unsubscribed chan struct{}
}

// New returns an empty Service.
func New() *Service {
	return &Service{
		Notes:        map[string]memd.NoteDetail{},
		FolderList:   map[string]memd.FolderStatus{},
		Events:       make(chan memd.Event),
		Unsubscribed: make(chan struct{}, 64),
	}
}

// Recall returns the chunks whose text contains the query, in path order,
// cut to their excerpts when r asks for them.
func (s *Service) Recall(ctx context.Context, r memd.RecallRequest) (memd.RecallResult, error) {
	if s.RecallHook != nil {
		return s.RecallHook(ctx, r)
	}
	s.Mu.Lock()
	defer s.Mu.Unlock()
	s.LastRecall = r
	res := memd.RecallResult{Hits: []memd.Hit{}}
	for _, p := range s.sortedNotes() {
		for _, c := range s.Notes[p].Chunks {
			if strings.Contains(c.Text, r.Query) {
				res.Hits = append(res.Hits, c)
			}
		}
	}
	if r.Excerpt != nil {
		r.Excerpt.Cut(res.Hits)
	}
	return res, nil
}

func (s *Service) sortedNotes() []string {
	paths := make([]string, 0, len(s.Notes))
	for p := range s.Notes {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	return paths
}

// Status counts the fields.
func (s *Service) Status(ctx context.Context) (memd.Status, error) {
	folders, _ := s.Folders(ctx)
	s.Mu.Lock()
	defer s.Mu.Unlock()
	st := memd.Status{Version: "apitest", Folders: folders, Notes: len(s.Notes), Pending: s.Pending, Skipped: len(s.SkipList)}
	for _, n := range s.Notes {
		st.Chunks += len(n.Chunks)
	}
	return st, nil
}

// AddFolder registers path; adding it again is not an error.
func (s *Service) AddFolder(_ context.Context, path string) (memd.FolderStatus, error) {
	s.Mu.Lock()
	defer s.Mu.Unlock()
	f, ok := s.FolderList[path]
	if !ok {
		f = memd.FolderStatus{Path: path, Watching: true}
		s.FolderList[path] = f
	}
	return f, nil
}

// RemoveFolder unregisters path, or wraps memd.ErrUnknownFolder.
func (s *Service) RemoveFolder(_ context.Context, path string) error {
	s.Mu.Lock()
	defer s.Mu.Unlock()
	if _, ok := s.FolderList[path]; !ok {
		return fmt.Errorf("%w: %s is not registered; memctl status lists the folders", memd.ErrUnknownFolder, path)
	}
	delete(s.FolderList, path)
	return nil
}

// Folders lists the registered folders in path order.
func (s *Service) Folders(context.Context) ([]memd.FolderStatus, error) {
	s.Mu.Lock()
	defer s.Mu.Unlock()
	out := []memd.FolderStatus{}
	for _, f := range s.FolderList {
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// Note returns the note at path, or wraps memd.ErrNotFound.
func (s *Service) Note(_ context.Context, path string) (memd.NoteDetail, error) {
	s.Mu.Lock()
	defer s.Mu.Unlock()
	n, ok := s.Notes[path]
	if !ok {
		return memd.NoteDetail{}, fmt.Errorf("%w: note %s is not indexed", memd.ErrNotFound, path)
	}
	return n, nil
}

// Forget drops the note at path, or wraps memd.ErrNotFound.
func (s *Service) Forget(_ context.Context, path string) error {
	s.Mu.Lock()
	defer s.Mu.Unlock()
	s.LastForget = path
	if _, ok := s.Notes[path]; !ok {
		return fmt.Errorf("%w: note %s is not indexed", memd.ErrNotFound, path)
	}
	delete(s.Notes, path)
	return nil
}

// Compact reports a store that shrank by half.
func (s *Service) Compact(context.Context) (memd.CompactResult, error) {
	return memd.CompactResult{BeforeBytes: 2 << 20, AfterBytes: 1 << 20}, nil
}

// Reindex records path and reports every note under it as queued, or
// answers as ReindexHook says.
func (s *Service) Reindex(ctx context.Context, path string) (int, error) {
	s.Mu.Lock()
	hook := s.ReindexHook
	s.Mu.Unlock()
	if hook != nil {
		return hook(ctx, path)
	}
	s.Mu.Lock()
	defer s.Mu.Unlock()
	s.LastReindex = path
	n := 0
	for p := range s.Notes {
		if strings.HasPrefix(p, path) {
			n++
		}
	}
	return n, nil
}

// Skips returns SkipList.
func (s *Service) Skips(context.Context) ([]memd.Skip, error) {
	s.Mu.Lock()
	defer s.Mu.Unlock()
	return append([]memd.Skip{}, s.SkipList...), nil
}

// Subscribe passes on events sent to Events until ctx ends.
func (s *Service) Subscribe(ctx context.Context) <-chan memd.Event {
	out := make(chan memd.Event)
	go func() {
		defer func() {
			close(out)
			s.Unsubscribed <- struct{}{}
		}()
		for {
			select {
			case <-ctx.Done():
				return
			case ev := <-s.Events:
				select {
				case out <- ev:
				case <-ctx.Done():
					return
				}
			}
		}
	}()
	return out
}

// WaitIdle returns nil, or what WaitIdleHook says.
func (s *Service) WaitIdle(ctx context.Context) error {
	if s.WaitIdleHook != nil {
		return s.WaitIdleHook(ctx)
	}
	return nil
}
