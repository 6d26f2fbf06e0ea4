package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	bars "github.com/jedib0t/go-pretty/v6/progress"
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

// noteBar draws what is being done, the notes done, their rate and the
// time taken: "indexing ~/notes (812 pending) ... [<#>.....] [2306 notes
// in 5s; 412 notes/s]". It has no total: pending counts jobs, which merge
// and split as a folder is scanned, so a total made from it jumps (0/5183,
// 0/3136, 2306/2307).
type noteBar struct {
	writer   bars.Writer
	tracker  *bars.Tracker
	rendered chan struct{}
}

func newNoteBar(w io.Writer) *noteBar {
	pw := bars.NewWriter()
	pw.SetOutputWriter(w)
	pw.SetUpdateFrequency(100 * time.Millisecond)
	pw.SetTrackerLength(20)
	pw.SetTrackerPosition(bars.PositionRight)
	pw.ShowPercentage(false)
	pw.ShowETA(false)
	st := pw.Style()
	st.Visibility.Speed = true
	st.Options.Separator = " "
	st.Options.TimeInProgressPrecision = time.Second
	b := &noteBar{writer: pw, rendered: make(chan struct{}),
		tracker: &bars.Tracker{Units: notes, RemoveOnCompletion: true}}
	pw.AppendTracker(b.tracker)
	go func() {
		defer close(b.rendered)
		pw.Render()
	}()
	return b
}

var notes = bars.Units{Notation: " notes", NotationPosition: bars.UnitsNotationPositionAfter}

func (b *noteBar) set(desc string, done int) {
	b.tracker.UpdateMessage(desc)
	b.tracker.SetValue(int64(done))
}

// clear takes the bar off the screen and returns when it is gone.
func (b *noteBar) clear() {
	b.tracker.MarkAsDone()
	b.writer.Stop()
	<-b.rendered
}

func (p *progress) stop() {
	p.cancel()
	p.wg.Wait()
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
