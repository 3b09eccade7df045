package crawler

import "strings"

// Kind is which of a topic's stacks an entry waits on.
type Kind int

// The kinds of stack a topic has.
const (
	// Main is the topic's stack (or the bfs queue), served first.
	Main Kind = iota
	// Reserve holds the links its classifier found off-topic
	// (Config.Tunnel), served shallowest first once the stack is empty.
	Reserve
	// Parts holds the links into compound documents the topic already
	// found (Config.Sections), served after the reserve.
	Parts
)

var kindSuffix = [...]string{Main: "", Reserve: "~reserve", Parts: "~parts"}

// String names the kind as progress lines and metrics do.
func (k Kind) String() string {
	switch k {
	case Reserve:
		return "reserve"
	case Parts:
		return "parts"
	}
	return "stack"
}

// Stack identifies one stack of the frontier: a topic's stack, its
// reserve or its parts; the bfs queue is the Main stack of topic "".
type Stack struct {
	Topic string
	Kind  Kind
}

// Name is the stack's key in the Store (Entry.Topic, CrawlSpec.Stacks):
// the topic, with "~reserve" or "~parts" after it for those kinds.
func (s Stack) Name() string { return s.Topic + kindSuffix[s.Kind] }

// ParseStack gives back the Stack a store key names.
func ParseStack(name string) Stack {
	for k := Reserve; k <= Parts; k++ {
		if t, ok := strings.CutSuffix(name, kindSuffix[k]); ok {
			return Stack{Topic: t, Kind: k}
		}
	}
	return Stack{Topic: name}
}
