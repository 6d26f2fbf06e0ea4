package memory

import "time"

// ChatOptions tune chat. The zero value is what the daemon uses.
type ChatOptions struct {
	// MaxInFlight is how many chats may be queued or generating at once;
	// more get ErrBusy. Zero means 64.
	MaxInFlight int
	// Sessions is how many server-kept conversations are remembered; zero
	// means 256, negative turns sessions off.
	Sessions int
	// SessionMessages caps the turns kept per session, oldest dropped
	// first; zero means 64.
	SessionMessages int
	// RetryAfter is the wait suggested to a client refused with ErrBusy;
	// zero means one second.
	RetryAfter time.Duration
}

func (o ChatOptions) withDefaults() ChatOptions {
	if o.MaxInFlight <= 0 {
		o.MaxInFlight = 64
	}
	if o.Sessions == 0 {
		o.Sessions = 256
	}
	if o.SessionMessages <= 0 {
		o.SessionMessages = 64
	}
	if o.RetryAfter <= 0 {
		o.RetryAfter = time.Second
	}
	return o
}
