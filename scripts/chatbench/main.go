package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/memd-dev/memd"
	"github.com/memd-dev/memd/api"
	"github.com/memd-dev/memd/inference"
	"github.com/memd-dev/memd/inference/llama"
	"github.com/memd-dev/memd/inference/testmodel"
)

var (
	memdBin = flag.String("memd", "", "the memd binary to run")
	notes   = flag.String("notes", "../shared/corpora/dendron/vault", "folder of notes to index")
	runs    = flag.Int("runs", 10, "chats per side for the overhead figures")
	tokens  = flag.Int("tokens", 128, "tokens per chat")
	slots   = flag.Int("slots", 8, "generator slots (both sides)")
	threads = flag.Int("threads", 1, "decode threads (both sides)")
	recalls = flag.Int("recalls", 500, "recall queries per phase")
	limit   = flag.Int("limit", 300, "notes of the folder to index (memd summarizes each with the generator)")
	embd    = flag.Int("embd", 0, "instead of the bigram, a random-weight llama with this n_embd, 4 layers and a Gemma chat template")
)

func main() {
	flag.Parse()
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "chatbench:", err)
		os.Exit(1)
	}
}

func run() error {
	if *memdBin == "" {
		return fmt.Errorf("pass -memd, the memd binary")
	}
	dir, err := os.MkdirTemp("", "chatbench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	model, err := testmodel.WriteChatModel(dir)
	if *embd > 0 {
		model, err = testmodel.WriteLlama(dir, testmodel.Config{Seed: 7, Embd: *embd, Layers: 4, Heads: 4, Ctx: 2048, ChatTemplate: true})
	}
	if err != nil {
		return err
	}
	data, sock := filepath.Join(dir, "data"), filepath.Join(dir, "memd.sock")
	absNotes, _ := filepath.Abs(*notes)

	// memd summarizes every note with its generator, so the notes are a
	// sample of the folder, and the measured daemon has finished with them.
	sample := filepath.Join(dir, "notes")
	n, err := copySample(absNotes, sample, *limit)
	if err != nil {
		return err
	}
	stop, err := startMemd(data, sock, "--generator", model, "--slots", strconv.Itoa(*slots), "--threads", strconv.Itoa(*threads), "--max-chats", "256")
	if err != nil {
		return err
	}
	defer stop()
	c := api.NewClient(sock)
	ctx := context.Background()
	t0 := time.Now()
	if _, err := c.AddFolder(ctx, sample); err != nil {
		return err
	}
	if err := c.WaitIdle(ctx); err != nil {
		return err
	}
	st, _ := c.Status(ctx)
	fmt.Printf("indexed %d of %d notes (%d chunks, with summaries by the generator) in %v\n", st.Notes, n, st.Chunks, time.Since(t0).Round(time.Millisecond))
	lib, err := llama.Open(os.Getenv("MEMD_LLAMA_LIB"))
	if err != nil {
		return err
	}
	g, err := inference.LoadGenerator(lib, inference.GeneratorConfig{Path: model, Slots: *slots, Threads: *threads})
	if err != nil {
		return err
	}
	defer g.Close()
	name := "inference/testmodel's bigram (the cheapest possible decode, so overhead shows most)"
	if *embd > 0 {
		name = fmt.Sprintf("random llama, n_embd %d, 4 layers, Gemma template", *embd)
	}
	fmt.Printf("model: %s; slots %d, threads %d, %d tokens a chat; %d CPUs\n\n", name, *slots, *threads, *tokens, runtime.NumCPU())

	overhead(ctx, c, g)
	fmt.Println()
	concurrency(ctx, c, g)
	fmt.Println()
	recallUnderLoad(ctx, c, words(sample))
	return nil
}

// oneRun is what one chat took, as its caller saw it.
type oneRun struct {
	ttft, decode time.Duration
	tokens       int
	prompt       int
}

func (r oneRun) tps() float64 {
	if r.tokens < 2 || r.decode <= 0 {
		return 0
	}
	return float64(r.tokens-1) / r.decode.Seconds()
}

var question = []memd.Message{{Role: memd.RoleUser, Content: "What do my notes say about publishing a vault?"}}

func viaDaemon(ctx context.Context, c *api.Client, withMemory bool) (oneRun, error) {
	return viaDaemonEach(ctx, c, withMemory, func() {})
}

// viaDaemonEach is viaDaemon calling onDelta at each piece of text.
func viaDaemonEach(ctx context.Context, c *api.Client, withMemory bool, onDelta func()) (oneRun, error) {
	req := memd.ChatRequest{Messages: question, MaxTokens: *tokens, Memory: &withMemory}
	start := time.Now()
	var first, last time.Time
	res, err := c.Chat(ctx, req, func(ev memd.ChatEvent) error {
		if ev.Type == memd.ChatDelta {
			last = time.Now()
			if first.IsZero() {
				first = last
			}
			onDelta()
		}
		return nil
	})
	if err != nil {
		return oneRun{}, err
	}
	return oneRun{ttft: first.Sub(start), decode: last.Sub(first), tokens: res.Usage.CompletionTokens, prompt: res.Usage.PromptTokens}, nil
}

// direct sends the generator the prompt memd renders for the plain chat
// (the model has no chat template: a transcript).
func direct(ctx context.Context, g *inference.Generator) (oneRun, error) {
	req := inference.CompletionRequest{Prompt: "User: " + question[0].Content + "\n\nAssistant:"}
	if *embd > 0 {
		req = inference.CompletionRequest{Messages: []inference.Message{{Role: question[0].Role, Content: question[0].Content}}}
	}
	start := time.Now()
	var first, last time.Time
	req.MaxTokens, req.Priority = *tokens, inference.Interactive
	req.OnToken = func(string) error {
		last = time.Now()
		if first.IsZero() {
			first = last
		}
		return nil
	}
	comp, err := g.Complete(ctx, req)
	if err != nil {
		return oneRun{}, err
	}
	return oneRun{ttft: first.Sub(start), decode: last.Sub(first), tokens: comp.Generated, prompt: comp.PromptTokens}, nil
}

func overhead(ctx context.Context, c *api.Client, g *inference.Generator) {
	var d, x, m []oneRun
	for i := range *runs + 1 {
		dr, err1 := viaDaemon(ctx, c, false)
		xr, err2 := direct(ctx, g)
		mr, err3 := viaDaemon(ctx, c, true)
		if err := firstErr(err1, err2, err3); err != nil {
			fmt.Println("overhead:", err)
			return
		}
		if i > 0 { // the first of each warms caches
			d, x, m = append(d, dr), append(x, xr), append(m, mr)
		}
	}
	ttft := func(rs []oneRun) time.Duration {
		return time.Duration(median(rs, func(r oneRun) float64 { return float64(r.ttft) }))
	}
	tps := func(rs []oneRun) float64 { return median(rs, oneRun.tps) }
	fmt.Printf("one chat at a time, median of %d (prompt/answer tokens: daemon %d/%d, direct %d/%d, with memory %d/%d)\n",
		len(d), d[0].prompt, d[0].tokens, x[0].prompt, x[0].tokens, m[0].prompt, m[0].tokens)
	fmt.Println("| path | time to first token | tokens/s |")
	fmt.Println("|---|---|---|")
	fmt.Printf("| generator called directly | %v | %.1f |\n", ttft(x).Round(10*time.Microsecond), tps(x))
	fmt.Printf("| memd, plain chat (SSE over the socket) | %v | %.1f |\n", ttft(d).Round(10*time.Microsecond), tps(d))
	fmt.Printf("| memd, chat with memory (recall + sources in the prompt) | %v | %.1f |\n", ttft(m).Round(10*time.Microsecond), tps(m))
	fmt.Printf("daemon overhead: TTFT %+v, tokens/s %+.1f%%\n", (ttft(d) - ttft(x)).Round(10*time.Microsecond), 100*(tps(d)-tps(x))/tps(x))
}

func concurrency(ctx context.Context, c *api.Client, g *inference.Generator) {
	fmt.Println("| concurrent chats | memd aggregate tokens/s | direct aggregate tokens/s | memd wall |")
	fmt.Println("|---|---|---|---|")
	for _, n := range []int{1, 8, 32} {
		dt, dw, err1 := parallel(n, func() (int, error) { r, err := viaDaemon(ctx, c, false); return r.tokens, err })
		xt, xw, err2 := parallel(n, func() (int, error) { r, err := direct(ctx, g); return r.tokens, err })
		if err := firstErr(err1, err2); err != nil {
			fmt.Println("concurrency:", err)
			return
		}
		fmt.Printf("| %d | %.0f | %.0f | %v |\n", n, float64(dt)/dw.Seconds(), float64(xt)/xw.Seconds(), dw.Round(time.Millisecond))
	}
}

func parallel(n int, f func() (int, error)) (int, time.Duration, error) {
	var wg sync.WaitGroup
	var total atomic.Int64
	errs := make([]error, n)
	start := time.Now()
	for i := range n {
		wg.Go(func() {
			t, err := f()
			total.Add(int64(t))
			errs[i] = err
		})
	}
	wg.Wait()
	return int(total.Load()), time.Since(start), firstErr(errs...)
}

func recallUnderLoad(ctx context.Context, c *api.Client, vocab []string) {
	measure := func() (p50, p99 time.Duration, err error) {
		var lat []time.Duration
		r := rand.New(rand.NewPCG(1, 2))
		for range *recalls {
			q := vocab[r.IntN(len(vocab))] + " " + vocab[r.IntN(len(vocab))]
			start := time.Now()
			if _, err := c.Recall(ctx, memd.RecallRequest{Query: q}); err != nil {
				return 0, 0, err
			}
			lat = append(lat, time.Since(start))
		}
		slices.Sort(lat)
		return lat[len(lat)/2], lat[len(lat)*99/100], nil
	}
	i50, i99, err := measure()
	if err != nil {
		fmt.Println("recall:", err)
		return
	}
	lctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	var streamed atomic.Int64
	started := make(chan struct{}, 8)
	for range 8 {
		wg.Go(func() {
			first := true
			for lctx.Err() == nil {
				viaDaemonEach(lctx, c, true, func() {
					streamed.Add(1)
					if first {
						first = false
						started <- struct{}{}
					}
				})
			}
		})
	}
	for range 8 {
		<-started // every chat is generating
	}
	before, start := streamed.Load(), time.Now()
	l50, l99, err := measure()
	took, during := time.Since(start), streamed.Load()-before
	cancel()
	wg.Wait()
	if err != nil {
		fmt.Println("recall:", err)
		return
	}
	fmt.Printf("recall latency over %d queries (HTTP over the socket, BM25 over the notes)\n", *recalls)
	fmt.Println("| daemon | p50 | p99 |")
	fmt.Println("|---|---|---|")
	fmt.Printf("| idle | %v | %v |\n", i50.Round(10*time.Microsecond), i99.Round(10*time.Microsecond))
	fmt.Printf("| 8 chats with memory streaming (%.0f tokens/s meanwhile) | %v | %v |\n", float64(during)/took.Seconds(),
		l50.Round(10*time.Microsecond), l99.Round(10*time.Microsecond))
}

// words are query words taken from the notes' file names.
func words(dir string) []string {
	var out []string
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		for w := range strings.FieldsFuncSeq(strings.TrimSuffix(e.Name(), filepath.Ext(e.Name())), func(r rune) bool {
			return r == '.' || r == '-' || r == '_'
		}) {
			if len(w) > 3 {
				out = append(out, w)
			}
		}
	}
	if len(out) == 0 {
		out = []string{"note"}
	}
	return out
}

func startMemd(data, sock string, extra ...string) (stop func(), err error) {
	cmd := exec.Command(*memdBin, append([]string{"--data", data, "--socket", sock, "--log-level", "warn"}, extra...)...)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	stop = func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	}
	c := api.NewClient(sock)
	defer c.Close()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if _, err := c.Status(context.Background()); err == nil {
			return stop, nil
		}
	}
	stop()
	return nil, fmt.Errorf("memd did not answer on %s within 30s", sock)
}

func median[T any](xs []T, key func(T) float64) float64 {
	v := make([]float64, len(xs))
	for i, x := range xs {
		v[i] = key(x)
	}
	slices.Sort(v)
	return v[len(v)/2]
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// copySample copies up to limit Markdown notes of src into dst.
func copySample(src, dst string, limit int) (int, error) {
	if err := os.MkdirAll(dst, 0o700); err != nil {
		return 0, err
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, e := range entries {
		if n == limit {
			break
		}
		if !e.Type().IsRegular() || filepath.Ext(e.Name()) != ".md" {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			return n, err
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o600); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}
