package hub

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/memd-dev/memd/inference/gguf"
)

// Progress is told the bytes of the file on disk so far and the file's
// size (-1 when unknown). Pull calls it on its caller's goroutine after
// every read from the network: a progress bar should redraw at its own pace.
type Progress func(done, total int64)

// Pull downloads file from repo at rev ("" means "main") to
// LocalPath(modelsDir, repo, file) and returns that path; "" modelsDir
// means ModelsDir(). It guarantees that what it leaves at the path is the
// file the hub published (size and, where the hub gives one, sha256 or git
// blob sha1 checked) and a GGUF file inference/gguf.Check accepts; the path
// is replaced atomically, so a reader sees the old file or the new one.
//
// Bytes go to <path>.partial first. A download that breaks off is resumed
// with a Range request, up to Client.Attempts tries; after the last, the
// partial file stays and the next Pull resumes it (when the server answers
// 206; it starts over on 200). A file already at the path that matches the
// hub (hashed again to be sure) is not downloaded again. A connection that
// sends nothing for a minute is cut and resumed. Client.HTTP's Timeout, if
// set, bounds each whole request, so leave it 0 for large files. p may be
// nil.
func (c *Client) Pull(ctx context.Context, repo, file, modelsDir, rev string, p Progress) (string, error) {
	if p == nil {
		p = func(int64, int64) {}
	}
	f, err := c.Stat(ctx, repo, file, rev)
	if err != nil {
		return "", err
	}
	dest := LocalPath(modelsDir, repo, file)
	if current(dest, f) {
		p(f.Size, f.Size)
		return dest, nil
	}
	if err := os.MkdirAll(filepath.Dir(dest), 0o700); err != nil {
		return "", fmt.Errorf("create the models folder: %w", err)
	}
	partial := dest + ".partial"
	if err := c.download(ctx, f, partial, p); err != nil {
		return "", err
	}
	if err := install(partial, dest, f); err != nil {
		return "", err
	}
	return dest, nil
}

// current reports whether dest already holds f: same size, same hash where
// the hub gave one, and a GGUF file that checks.
func current(dest string, f File) bool {
	st, err := os.Stat(dest)
	if err != nil || !st.Mode().IsRegular() || (f.Size >= 0 && st.Size() != f.Size) {
		return false
	}
	if sum := newSum(f); sum != nil {
		fh, err := os.Open(dest)
		if err != nil {
			return false
		}
		defer fh.Close()
		if _, err := io.Copy(sum, fh); err != nil || !sum.matches() {
			return false
		}
	}
	return acceptGGUF(dest) == nil
}

// download brings partial to the whole file and checks it against f.
func (c *Client) download(ctx context.Context, f File, partial string, p Progress) error {
	fh, err := os.OpenFile(partial, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("open %s: %w", partial, err)
	}
	defer fh.Close()
	t := &transfer{f: fh, file: f, progress: p}
	if err := t.resumeFrom(); err != nil {
		return err
	}
	if err := checkSpace(filepath.Dir(partial), f.Size-t.n); err != nil {
		return err
	}
	attempts := c.Attempts
	if attempts <= 0 {
		attempts = 3
	}
	for try := 1; f.Size < 0 || t.n < f.Size; try++ {
		err := c.fetch(ctx, t)
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			return fmt.Errorf("download %s from %s stopped at %s of %s (%w): run the same command again to resume",
				f.Name, f.Repo, bytesText(t.n), bytesText(f.Size), ctx.Err())
		}
		var tr transient
		if !errors.As(err, &tr) {
			return err
		}
		if try >= attempts {
			return fmt.Errorf("download %s from %s stopped at %s of %s after %d tries: %v: run the same command again to resume: %w",
				f.Name, f.Repo, bytesText(t.n), bytesText(f.Size), try, tr.err, ErrInterrupted)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(c.retryDelay(try)):
		}
	}
	if err := fh.Sync(); err != nil {
		return t.writeError(err)
	}
	return t.verify(partial)
}

func (c *Client) retryDelay(try int) time.Duration {
	if c.backoff > 0 {
		return c.backoff
	}
	return time.Duration(try) * time.Second
}

// transfer is one file's download state across attempts: the partial file,
// how much of it is written, and the running hash of those bytes.
type transfer struct {
	f        *os.File
	file     File
	progress Progress
	n        int64
	sum      *sum
}

// resumeFrom takes up what a previous Pull left in the partial file,
// hashing it so the check at the end covers the whole file.
func (t *transfer) resumeFrom() error {
	st, err := t.f.Stat()
	if err != nil {
		return fmt.Errorf("stat %s: %w", t.f.Name(), err)
	}
	t.sum = newSum(t.file)
	have := st.Size()
	if t.file.Size < 0 || have > t.file.Size {
		return t.restart()
	}
	if t.sum != nil {
		if _, err := io.Copy(t.sum, io.NewSectionReader(t.f, 0, have)); err != nil {
			return t.restart()
		}
	}
	if _, err := t.f.Seek(have, io.SeekStart); err != nil {
		return fmt.Errorf("seek %s: %w", t.f.Name(), err)
	}
	t.n = have
	t.progress(t.n, t.file.Size)
	return nil
}

func (t *transfer) restart() error {
	if err := t.f.Truncate(0); err != nil {
		return fmt.Errorf("truncate %s: %w", t.f.Name(), err)
	}
	if _, err := t.f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("seek %s: %w", t.f.Name(), err)
	}
	t.n = 0
	t.sum = newSum(t.file)
	t.progress(0, t.file.Size)
	return nil
}

// transient marks a failed attempt that may succeed when tried again.
type transient struct{ err error }

func (e transient) Error() string { return e.err.Error() }
func (e transient) Unwrap() error { return e.err }

var contentRange = lazyRegexp(`^bytes (\d+)-\d+/(\d+|\*)$`)

// fetch makes one GET of the file, from byte t.n on, and appends what
// arrives to the partial file.
func (c *Client) fetch(ctx context.Context, t *transfer) error {
	f := t.file
	rev := f.Commit
	if rev == "" {
		rev = f.Revision
	}
	u, err := c.resolveURL(f.Repo, rev, f.Name)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return fmt.Errorf("download %s: %w", f.Name, err)
	}
	if t.n > 0 {
		req.Header.Set("Range", "bytes="+strconv.FormatInt(t.n, 10)+"-")
	}
	// A connection that goes quiet is cut, and the next try resumes.
	stall := c.stall
	if stall <= 0 {
		stall = time.Minute
	}
	actx, cancel := context.WithCancel(ctx)
	defer cancel()
	watchdog := time.AfterFunc(stall, cancel)
	defer watchdog.Stop()
	req = req.WithContext(actx)
	stalled := func(err error) error {
		if ctx.Err() == nil && actx.Err() != nil {
			return transient{fmt.Errorf("no data for %v", stall)}
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return transient{err}
	}
	resp, err := c.do(req, func(*url.URL) bool { return true })
	if err != nil {
		return stalled(err)
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusPartialContent:
		m := contentRange().FindStringSubmatch(resp.Header.Get("Content-Range"))
		if m == nil || m[1] != strconv.FormatInt(t.n, 10) {
			if err := t.restart(); err != nil {
				return err
			}
			return transient{fmt.Errorf("the server sent range %q for a resume from byte %d", resp.Header.Get("Content-Range"), t.n)}
		}
	case resp.StatusCode == http.StatusOK:
		if t.n > 0 {
			if err := t.restart(); err != nil {
				return err
			}
		}
	case resp.StatusCode == http.StatusRequestedRangeNotSatisfiable:
		if err := t.restart(); err != nil {
			return err
		}
		return transient{fmt.Errorf("the server refused to resume from byte %d", t.n)}
	case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500:
		return transient{c.statusError(resp, f.Repo, f.Name, f.Revision)}
	default:
		return c.statusError(resp, f.Repo, f.Name, f.Revision)
	}
	if err := t.copyFrom(resp.Body, func() { watchdog.Reset(stall) }); err != nil {
		var tr transient
		if errors.As(err, &tr) {
			return stalled(tr.err)
		}
		return err
	}
	return nil
}

// copyFrom appends body to the partial file, hashing and reporting as it
// goes; alive is called whenever bytes arrive.
func (t *transfer) copyFrom(body io.Reader, alive func()) error {
	buf := make([]byte, 1<<20)
	for {
		k, rerr := body.Read(buf)
		if k > 0 {
			alive()
			if _, err := t.f.Write(buf[:k]); err != nil {
				return t.writeError(err)
			}
			if t.sum != nil {
				t.sum.Write(buf[:k])
			}
			t.n += int64(k)
			t.progress(t.n, t.file.Size)
		}
		if rerr == io.EOF {
			if t.file.Size >= 0 && t.n < t.file.Size {
				return transient{fmt.Errorf("the connection closed at byte %d of %d", t.n, t.file.Size)}
			}
			return nil
		}
		if rerr != nil {
			return transient{rerr}
		}
		if t.file.Size >= 0 && t.n > t.file.Size {
			return t.mismatch(fmt.Sprintf("the server sent more than the %d bytes the hub announced", t.file.Size))
		}
	}
}

func (t *transfer) writeError(err error) error {
	if errors.Is(err, syscall.ENOSPC) {
		// The partial file is kept: after freeing space, Pull resumes it.
		return fmt.Errorf("write %s: the disk is full: free %s in %s (or pull to another models folder) and run the same command again: %w",
			t.f.Name(), bytesText(t.file.Size-t.n), filepath.Dir(t.f.Name()), ErrDiskFull)
	}
	return fmt.Errorf("write %s: %w", t.f.Name(), err)
}

// verify checks the finished partial file against the hub's size and hash.
func (t *transfer) verify(partial string) error {
	if t.file.Size >= 0 && t.n != t.file.Size {
		return t.mismatch(fmt.Sprintf("%d bytes arrived, the hub announced %d", t.n, t.file.Size))
	}
	if t.sum != nil && !t.sum.matches() {
		return t.mismatch(fmt.Sprintf("its %s is %s, the hub published %s", t.sum.kind, t.sum.got(), t.sum.want))
	}
	return nil
}

func (t *transfer) mismatch(why string) error {
	name := t.f.Name()
	t.f.Close()
	os.Remove(name)
	return fmt.Errorf("download of %s from %s is damaged (%s): the partial file was deleted; run the same command again to download it afresh: %w",
		t.file.Name, t.file.Repo, why, ErrChecksum)
}

// install checks the verified partial file as a model and renames it into
// place.
func install(partial, dest string, f File) error {
	if err := acceptGGUF(partial); err != nil {
		os.Remove(partial)
		return fmt.Errorf("%s from %s downloaded intact but is not a model memd can load, so it was deleted: %w: %w", f.Name, f.Repo, ErrNotModel, err)
	}
	if err := os.Rename(partial, dest); err != nil {
		return fmt.Errorf("move the download into place: %w", err)
	}
	if d, err := os.Open(filepath.Dir(dest)); err == nil {
		_ = d.Sync() // makes the rename durable where the platform allows
		d.Close()
	}
	return nil
}

// laterShard matches the second and later files of a split GGUF model
// (model-00002-of-00003.gguf), which carry tensors and split.* keys but
// no general.architecture.
var laterShard = lazyRegexp(`-(\d{5})-of-\d{5}\.gguf$`)

func acceptGGUF(path string) error {
	_, err := gguf.Check(path)
	if errors.Is(err, gguf.ErrNoArchitecture) {
		if m := laterShard().FindStringSubmatch(strings.TrimSuffix(path, ".partial")); m != nil && m[1] != "00001" {
			return nil
		}
	}
	return err
}

// bytesText is a size for people: "1.4 GB", "512 B"; "?" when unknown.
func bytesText(n int64) string {
	switch {
	case n < 0:
		return "?"
	case n < 1000:
		return strconv.FormatInt(n, 10) + " B"
	}
	v, units := float64(n), []string{"kB", "MB", "GB", "TB"}
	for i, u := range units {
		v /= 1000
		if v < 1000 || i == len(units)-1 {
			return strconv.FormatFloat(v, 'f', 1, 64) + " " + u
		}
	}
	return ""
}
