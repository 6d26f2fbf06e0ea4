package mainstack

func init() { grow() }

// frameBytes is grow's frame: the stack doubles until it holds it, to
// 16 KiB, what memctl recall's deepest call needed.
const frameBytes = 8 << 10

// grow takes a frame of frameBytes, which the stack must first grow to hold.
//
//go:noinline
func grow() {
	var frame [frameBytes]byte
	use(frame[:])
}

//go:noinline
func use(b []byte) { b[len(b)-1] = 1 }
