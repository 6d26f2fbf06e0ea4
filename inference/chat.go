package inference

import (
	"fmt"

	"github.com/memd-dev/memd/inference/llama"
)

// renderChat renders messages with the model's own template (through
// llama.cpp), ending with an open assistant turn.
func renderChat(m *llama.Model, msgs []Message) (string, error) {
	tmpl := m.ChatTemplate()
	if tmpl == "" {
		return "", ErrNoChatTemplate
	}
	lm := make([]llama.ChatMessage, len(msgs))
	for i, msg := range msgs {
		lm[i] = llama.ChatMessage{Role: msg.Role, Content: msg.Content}
	}
	out, err := m.ApplyChatTemplate(tmpl, lm, true)
	if err != nil {
		return "", fmt.Errorf("render chat template: %w", err)
	}
	return out, nil
}
