package memory

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/memd-dev/memd"
	"github.com/memd-dev/memd/inference"
)

// minPromptTokens is the room always left for a prompt when a client asks
// for a long answer.
const minPromptTokens = 64

// maxSourceBytes caps one source's text in the prompt, so that one huge
// chunk cannot push every other source out.
const maxSourceBytes = 3 << 10

// groundingInstructions open every prompt with memory. They are short:
// every token of them is prefill time before the first token of an answer.
const groundingInstructions = "Answer from the numbered sources, taken from my notes. " +
	"Cite each source you use by its number in brackets, like [1]. " +
	"If the sources do not answer the question, say so."

// noSourcesNote stands in for the sources when recall found nothing, so the
// model does not invent citations.
const noSourcesNote = "(No passage of my notes matched this question.)"

// prompt is a chat's input to the generator.
type prompt struct {
	tokens  []int32
	sources []memd.Source
	dropped int // recalled chunks left out for the budget
	cut     int // earlier turns left out for the budget
}

func (p prompt) warnings() []string {
	var w []string
	if p.dropped > 0 {
		w = append(w, fmt.Sprintf("%d recalled chunks did not fit the model's context and were left out", p.dropped))
	}
	if p.cut > 0 {
		w = append(w, fmt.Sprintf("the %d oldest turns of the conversation did not fit the model's context and were left out", p.cut))
	}
	return w
}

// buildPrompt renders the conversation with as many of the hits (best
// first) as fit in budget tokens. Sources go first; once none fit, the
// oldest turns go. A conversation whose last turn alone does not fit is an
// error.
func (s *Service) buildPrompt(conv []memd.Message, hits []memd.Hit, grounded bool, budget int) (prompt, error) {
	sources := make([]memd.Source, len(hits))
	for i, h := range hits {
		sources[i] = memd.SourceOf(i+1, h)
	}
	try := func(nSources, nCut int) (prompt, bool, error) {
		msgs, cut := render(conv, sources[:nSources], grounded, nCut)
		toks, err := s.tokenizeChat(msgs)
		if err != nil {
			return prompt{}, false, err
		}
		return prompt{tokens: toks, sources: sources[:nSources], dropped: len(sources) - nSources, cut: cut}, len(toks) <= budget, nil
	}
	p, ok, err := try(len(sources), 0)
	if err != nil || ok {
		return p, err
	}
	var searchErr error
	// The largest number of sources that fits; fitting is monotone in it.
	n := sort.Search(len(sources), func(n int) bool {
		_, ok, err := try(n+1, 0)
		searchErr = errors.Join(searchErr, err)
		return !ok
	})
	if searchErr != nil {
		return prompt{}, searchErr
	}
	if p, ok, err = try(n, 0); err != nil || ok {
		return p, err
	}
	turns := droppable(conv)
	c := sort.Search(turns, func(c int) bool {
		_, ok, err := try(0, c+1)
		searchErr = errors.Join(searchErr, err)
		return ok
	}) + 1
	if searchErr != nil {
		return prompt{}, searchErr
	}
	if c <= turns {
		if p, ok, err = try(0, c); err != nil || ok {
			return p, err
		}
	}
	p, _, _ = try(0, turns)
	return prompt{}, fmt.Errorf("%w: the last message is %d tokens with the instructions, over the %d the model's context leaves for a prompt; "+
		"send a shorter message or a smaller max_tokens", memd.ErrBadRequest, len(p.tokens), budget)
}

// droppable counts the turns that may be cut: all but the leading system
// turns and the last user turn.
func droppable(conv []memd.Message) int {
	lead := 0
	for lead < len(conv) && conv[lead].Role == memd.RoleSystem {
		lead++
	}
	return max(0, len(conv)-lead-1)
}

// render lays out the messages for the model: the instructions and any
// system turns of the client first, then the conversation without its cut
// oldest turns (and without an assistant turn left leading), the last user
// turn carrying the sources. It returns the number of turns cut.
func render(conv []memd.Message, sources []memd.Source, grounded bool, cut int) ([]inference.Message, int) {
	var system []string
	if grounded {
		system = append(system, groundingInstructions)
	}
	lead := 0
	for lead < len(conv) && conv[lead].Role == memd.RoleSystem {
		system = append(system, conv[lead].Content)
		lead++
	}
	rest := conv[lead:]
	skip := min(cut, len(rest)-1)
	for skip < len(rest)-1 && rest[skip].Role == memd.RoleAssistant {
		skip++
	}
	out := make([]inference.Message, 0, len(rest)-skip+1)
	if len(system) > 0 {
		out = append(out, inference.Message{Role: memd.RoleSystem, Content: strings.Join(system, "\n\n")})
	}
	for i, m := range rest[skip:] {
		content := m.Content
		if grounded && i == len(rest)-skip-1 {
			content = withSources(content, sources)
		}
		out = append(out, inference.Message{Role: m.Role, Content: content})
	}
	return out, skip
}

// withSources puts the numbered sources before the question.
func withSources(question string, sources []memd.Source) string {
	var b strings.Builder
	if len(sources) == 0 {
		b.WriteString(noSourcesNote)
	} else {
		b.WriteString("Sources from my notes:\n")
	}
	for _, src := range sources {
		b.WriteString("\n")
		writeSource(&b, src)
	}
	b.WriteString("\n\nQuestion: ")
	b.WriteString(question)
	return b.String()
}

// writeSource writes one source as "[n] path (heading, lines a–b)" and its
// text. The path is relative to the note's folder, to spend fewer tokens.
func writeSource(b *strings.Builder, src memd.Source) {
	path := src.Path
	if src.Folder != "" {
		path = strings.TrimPrefix(path, strings.TrimRight(src.Folder, "/")+"/")
	}
	fmt.Fprintf(b, "[%d] %s (", src.N, path)
	if len(src.Heading) > 0 {
		fmt.Fprintf(b, "%s, ", strings.Join(src.Heading, " > "))
	}
	fmt.Fprintf(b, "lines %d–%d)\n", src.StartLine, src.EndLine)
	b.WriteString(clip(strings.TrimSpace(src.Text), maxSourceBytes))
	b.WriteString("\n")
}

// clip cuts text to at most n bytes at a line or word boundary.
func clip(text string, n int) string {
	if len(text) <= n {
		return text
	}
	cut := text[:n]
	if i := strings.LastIndexAny(cut, "\n "); i > n/2 {
		cut = cut[:i]
	}
	for len(cut) > 0 && cut[len(cut)-1]&0xC0 == 0x80 { // never split a UTF-8 character
		cut = cut[:len(cut)-1]
	}
	if len(cut) > 0 && cut[len(cut)-1] >= 0xC0 {
		cut = cut[:len(cut)-1]
	}
	return cut + " …"
}

// tokenizeChat renders msgs with the model's chat template and tokenizes
// them as the generator would. A model without a template (a base model)
// is refused: a format guessed for it would be one it never saw.
func (s *Service) tokenizeChat(msgs []inference.Message) ([]int32, error) {
	text, err := s.gen.ChatPrompt(msgs)
	if errors.Is(err, inference.ErrNoChatTemplate) {
		return nil, fmt.Errorf("%w: the generator %s has no chat template (it is a base model), so chat cannot format a conversation for it; "+
			"continue raw text with POST %s instead, or load an instruction-tuned model", memd.ErrBadRequest, s.GeneratorName(), memd.RouteCompletions)
	}
	if err != nil {
		return nil, fmt.Errorf("chat: render prompt: %w", generatorError(err))
	}
	toks, err := s.gen.Tokenize(text, true, true)
	if err != nil {
		return nil, fmt.Errorf("chat: %w", generatorError(err))
	}
	// Templates that write the BOS themselves would get a second one from
	// the tokenizer; a prompt never holds two.
	if bos, ok := s.bosToken(); ok && len(toks) > 1 && toks[0] == bos && toks[1] == bos {
		toks = toks[1:]
	}
	return toks, nil
}

// bosToken is the token the tokenizer puts before a text, if any.
func (s *Service) bosToken() (int32, bool) {
	if v := s.chat.bos.Load(); v != 0 {
		return int32(v - 1), v > 0
	}
	toks, err := s.gen.Tokenize("", true, false)
	if err != nil {
		return 0, false
	}
	if len(toks) != 1 {
		s.chat.bos.Store(-1)
		return 0, false
	}
	s.chat.bos.Store(int64(toks[0]) + 1)
	return toks[0], true
}

// recallContextBytes is how much of the previous user turn joins the last
// one in the recall query: enough to carry a follow-up's topic.
const recallContextBytes = 200

// recallQuery is what chat recalls for: the last user turn, and the end of
// the user turn before it, as context for a follow-up like "and when?".
func recallQuery(conv []memd.Message) string {
	var users []string
	for i := len(conv) - 1; i >= 0 && len(users) < 2; i-- {
		if conv[i].Role == memd.RoleUser {
			users = append(users, strings.TrimSpace(conv[i].Content))
		}
	}
	q := clipQuery(users[0], memd.MaxQueryBytes-recallContextBytes-1)
	if len(users) > 1 && users[1] != "" {
		prev := users[1]
		if len(prev) > recallContextBytes {
			prev = prev[len(prev)-recallContextBytes:]
			if i := strings.IndexByte(prev, ' '); i >= 0 {
				prev = prev[i+1:]
			}
		}
		q = strings.ToValidUTF8(prev, "") + "\n" + q
	}
	return q
}

// clipQuery keeps the start of a long message within the query limit.
func clipQuery(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "")
}
