package memory

import (
	"container/list"
	"slices"
	"sync"

	"github.com/memd-dev/memd"
)

// sessions keeps conversations in the daemon by id, so a client can send
// only its new turn. It holds at most max sessions, dropping the least
// recently used, and at most perSession turns of each, dropping the oldest.
// It is safe for concurrent use; a nil *sessions keeps nothing.
type sessions struct {
	mu         sync.Mutex
	max        int
	perSession int
	byID       map[string]*list.Element
	lru        *list.List // front is the most recently used *session
}

type session struct {
	id    string
	turns []memd.Message
}

// newSessions returns a store of max sessions; max < 0 gives nil (off).
func newSessions(max, perSession int) *sessions {
	if max < 0 {
		return nil
	}
	return &sessions{max: max, perSession: perSession, byID: map[string]*list.Element{}, lru: list.New()}
}

func (s *sessions) enabled() bool { return s != nil }

// history returns a copy of the session's turns; none for an unknown id.
func (s *sessions) history(id string) []memd.Message {
	if s == nil || id == "" {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.byID[id]
	if !ok {
		return nil
	}
	s.lru.MoveToFront(e)
	return slices.Clone(e.Value.(*session).turns)
}

// record appends a finished exchange to the session, creating it.
func (s *sessions) record(id string, turns []memd.Message, answer memd.Message) {
	if s == nil || id == "" {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.byID[id]
	if !ok {
		e = s.lru.PushFront(&session{id: id})
		s.byID[id] = e
		for s.lru.Len() > s.max {
			old := s.lru.Back()
			delete(s.byID, old.Value.(*session).id)
			s.lru.Remove(old)
		}
	} else {
		s.lru.MoveToFront(e)
	}
	ss := e.Value.(*session)
	ss.turns = append(ss.turns, turns...)
	ss.turns = append(ss.turns, answer)
	if over := len(ss.turns) - s.perSession; over > 0 {
		cut := over
		// Keep the history opening with a user turn, as templates expect.
		for cut < len(ss.turns) && ss.turns[cut].Role != memd.RoleUser {
			cut++
		}
		ss.turns = slices.Clone(ss.turns[cut:])
	}
}

// len is the number of sessions kept.
func (s *sessions) len() int {
	if s == nil {
		return 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lru.Len()
}
