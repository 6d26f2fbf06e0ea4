package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
	"golang.org/x/term"

	"github.com/memd-dev/memd"
	"github.com/memd-dev/memd/api"
)

// progress follows indexing until the daemon is idle: it counts notes from
// the event stream and from status polls, takes the pending count from
// both, and draws a bar on a terminal.
type progress struct {
	c      *api.Client
	desc   string
	w      io.Writer // nil: draw nothing
	events chan memd.Event
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// startProgress subscribes to events now, so that work the caller starts
// next is counted. stop must be called.
func (a *app) startProgress(ctx context.Context, c *api.Client, desc string) *progress {
	ctx, cancel := context.WithCancel(ctx)
	p := &progress{c: c, desc: desc, cancel: cancel}
	switch {
	case a.json:
	case isTerminal(a.errOut):
		p.w = a.errOut
	case a.barOut != nil:
		p.w = a.barOut
	}
	s, err := c.Events(ctx)
	if err != nil {
		return p // status polls alone drive the bar
	}
	p.events = make(chan memd.Event, 64)
	p.wg.Go(func() {
		defer close(p.events)
		defer s.Close()
		for {
			ev, err := s.Next()
			if err != nil {
				return
			}
			select {
			case p.events <- ev:
			case <-ctx.Done():
				return
			}
		}
	})
	return p
}

// untilIdle returns when the daemon has no indexing work pending.
func (p *progress) untilIdle(ctx context.Context) error {
	idle := make(chan error, 1)
	p.wg.Go(func() { idle <- p.c.WaitIdle(ctx) })
	var bar *noteBar
	done, pending := 0, -1
	// On an idle daemon there is nothing to draw.
	draw := func() {
		if p.w == nil || (bar == nil && pending <= 0) {
			return
		}
		if bar == nil {
			bar = newNoteBar(p.w)
		}
		bar.set(fmt.Sprintf("%s (%d pending)", p.desc, max(pending, 0)), done)
	}
	base := int64(-1)
	poll := func() {
		st, err := p.c.Status(ctx)
		if err != nil {
			return
		}
		if base < 0 {
			base = st.Indexed
		}
		// Events can be dropped for a slow reader; the daemon's own count
		// of notes indexed catches the bar up.
		done = max(done, int(st.Indexed-base))
		pending = st.Pending
		draw()
	}
	poll()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case err := <-idle:
			if bar != nil {
				bar.clear()
			}
			return err
		case ev, ok := <-p.events:
			if !ok {
				p.events = nil
				continue
			}
			switch ev.Type {
			case memd.EventIndexed, memd.EventRemoved, memd.EventSkipped:
				done++
			}
			pending = ev.Pending
			draw()
		case <-tick.C:
			poll()
		}
	}
}

// noteBar draws a spinner, what is being done, the notes done, their rate
// and the time taken: "⠹ indexing ~/notes (812 pending) (2306 notes, 412
// notes/s) [5s]". It has no total: pending counts jobs, which merge and
// split as a folder is scanned, so a total made from it jumps (0/5183,
// 0/3136, 2306/2307).
type noteBar struct {
	container *mpb.Progress
	bar       *mpb.Bar
	start     time.Time
	desc      atomic.Pointer[string]
}

func newNoteBar(w io.Writer) *noteBar {
	b := &noteBar{start: time.Now(), container: mpb.New(mpb.WithOutput(w), mpb.WithRefreshRate(100*time.Millisecond),
		// A writer that is not a terminal (a test's) gets frames too.
		mpb.WithAutoRefresh())}
	b.desc.Store(new(string))
	b.bar = b.container.New(0, mpb.NopStyle(),
		mpb.PrependDecorators(decor.Spinner(nil, decor.WCSyncSpaceR), decor.Any(b.line)),
		mpb.BarRemoveOnComplete())
	return b
}

func (b *noteBar) line(s decor.Statistics) string {
	took := time.Since(b.start)
	return fmt.Sprintf("%s (%d notes, %.0f notes/s) [%v]", *b.desc.Load(), s.Current,
		float64(s.Current)/max(took.Seconds(), 1e-3), took.Round(time.Second))
}

func (b *noteBar) set(desc string, done int) {
	b.desc.Store(&desc)
	b.bar.SetCurrent(int64(done))
}

// clear takes the bar off the screen and returns when it is gone.
func (b *noteBar) clear() {
	b.bar.SetTotal(-1, true)
	b.container.Wait()
}

func (p *progress) stop() {
	p.cancel()
	p.wg.Wait()
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
