package inference

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"
)

// fakeModel is a Decoder and Vocab whose "model" is a function from a
// sequence's whole history to its next token. It checks what a real
// context would reject (positions out of order, batches over size, seq ids
// out of range), so the scheduler's bookkeeping is tested, not trusted. It
// also counts batches whose sequences are out of order (llama.cpp with one
// KV stream per sequence would split them needlessly); every test's
// scheduler must make none.
type fakeModel struct {
	nVocab    int
	nSeq      int
	nBatch    int
	eog       int32
	pieces    map[int32]string
	next      func(history []int32) int32
	delay     time.Duration
	failWhen  func(batch []BatchToken) error // optional injected failure
	cancelled func()                         // optional: called after each Decode

	mu         sync.Mutex
	kv         map[int32][]int32
	outOfOrder int // batches with a sequence after a higher one
	logits     [][]float32
	steps      [][]BatchToken
	removed    []int32
}

func newFakeModel(nSeq, nBatch int) *fakeModel {
	f := &fakeModel{
		nVocab: 32,
		nSeq:   nSeq,
		nBatch: nBatch,
		eog:    31,
		kv:     map[int32][]int32{},
		pieces: map[int32]string{},
	}
	for i := range 26 {
		f.pieces[int32(i)] = string(rune('a' + i))
	}
	f.pieces[26] = " "
	f.pieces[27] = "\xc3" // first byte of é
	f.pieces[28] = "\xa9" // second byte of é
	f.pieces[29] = "<"
	f.pieces[30] = ">"
	f.next = func(h []int32) int32 { return (h[len(h)-1] + 1) % 26 }
	return f
}

func (f *fakeModel) NVocab() int            { return f.nVocab }
func (f *fakeModel) Piece(tok int32) string { return f.pieces[tok] }
func (f *fakeModel) IsEOG(tok int32) bool   { return tok == f.eog }

func (f *fakeModel) Decode(batch []BatchToken) error {
	if f.delay > 0 {
		time.Sleep(f.delay)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.steps = append(f.steps, append([]BatchToken(nil), batch...))
	if f.cancelled != nil {
		defer f.cancelled()
	}
	if len(batch) == 0 || len(batch) > f.nBatch {
		return fmt.Errorf("fake: batch of %d, n_batch %d", len(batch), f.nBatch)
	}
	if f.failWhen != nil {
		if err := f.failWhen(batch); err != nil {
			return err
		}
	}
	want := map[int32]int32{}
	if !slices.IsSortedFunc(batch, func(a, b BatchToken) int { return cmp.Compare(a.Seq, b.Seq) }) {
		f.outOfOrder++
	}
	for _, t := range batch {
		if t.Seq < 0 || int(t.Seq) >= f.nSeq {
			return fmt.Errorf("fake: seq %d out of range", t.Seq)
		}
		if t.Token < 0 || int(t.Token) >= f.nVocab {
			return fmt.Errorf("fake: token %d out of range", t.Token)
		}
		p, ok := want[t.Seq]
		if !ok {
			p = int32(len(f.kv[t.Seq]))
		}
		if t.Pos != p {
			return fmt.Errorf("fake: seq %d pos %d, want %d", t.Seq, t.Pos, p)
		}
		want[t.Seq] = p + 1
	}
	f.logits = f.logits[:0]
	for _, t := range batch {
		f.kv[t.Seq] = append(f.kv[t.Seq], t.Token)
		var l []float32
		if t.Logits {
			l = make([]float32, f.nVocab)
			l[f.next(f.kv[t.Seq])] = 1
		}
		f.logits = append(f.logits, l)
	}
	return nil
}

func (f *fakeModel) Logits(i int) []float32 {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.logits[i] == nil {
		panic(fmt.Sprintf("fake: logits of entry %d not requested", i))
	}
	return f.logits[i]
}

func (f *fakeModel) RemoveSeq(seq, from int32) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if from == 0 {
		f.removed = append(f.removed, seq)
	}
	if kv := f.kv[seq]; int(from) < len(kv) {
		f.kv[seq] = kv[:from]
	}
	return nil
}

func (f *fakeModel) stepLog() [][]BatchToken {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([][]BatchToken(nil), f.steps...)
}

func (f *fakeModel) held(seq int32) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.kv[seq])
}

var errInjected = errors.New("injected failure")
