package memd

// The routes of memd's HTTP API, served on the daemon's unix socket (and on
// the optional loopback TCP listener). Each names the body it takes and the
// answer it gives.
const (
	RouteStatus  = "/v1/status"  // GET → Status
	RouteRecall  = "/v1/recall"  // POST RecallRequest → RecallResult
	RouteFolders = "/v1/folders" // GET → FolderList; POST PathBody → FolderStatus; DELETE PathBody → Removed
	RouteNotes   = "/v1/notes"   // GET ?path= → NoteDetail; DELETE PathBody → Removed
	RouteReindex = "/v1/reindex" // POST optional PathBody → ReindexResult
	RouteCompact = "/v1/compact" // POST → CompactResult
	RouteSkips   = "/v1/skips"   // GET → SkipList
	RouteIdle    = "/v1/idle"    // GET ?timeout=30s → IdleResult, a long poll
	RouteEvents  = "/v1/events"  // GET → server-sent Events
	RouteChat    = "/v1/chat"    // POST ChatBody → ChatResult, or a stream of ChatEvent names
	RouteWS      = "/v1/ws"      // GET: websocket JSON-RPC 2.0 (recall, chat, cancel, subscribe, status)

	// The OpenAI-compatible routes.
	RouteChatCompletions = "/v1/chat/completions"
	RouteCompletions     = "/v1/completions" // a raw prompt, no template: CompletionRequest → CompletionResult
	RouteEmbeddings      = "/v1/embeddings"
	RouteModels          = "/v1/models"
)
