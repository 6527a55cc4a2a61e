package trace

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"epsim/internal/jsonkind"
	"epsim/internal/jsonparse"
	"epsim/model"
	"epsim/sim"
)

// Stats describes a stream as it was read: how many events were used, what was skipped and
// where the event times came from.
type Stats struct {
	// Events is the number of events of the wanted kind returned.
	Events int64 `json:"events"`
	// Skipped counts events left out, keyed "kind Service" for other kinds of object or
	// "type BOOKMARK" for watch event types other than ADDED, MODIFIED and DELETED.
	Skipped map[string]int64 `json:"skipped,omitempty"`
	// RecordedTimes is true when the events carry the time they arrived ('sim record'), false
	// when times were taken from the objects' own timestamps.
	RecordedTimes bool `json:"recordedTimes"`
	// Clamped counts events whose own timestamps were earlier than the previous event's time;
	// stream order wins, so they were moved forward (object timestamps only).
	Clamped int64 `json:"clamped"`
	// Start is the wall-clock instant time 0 of the replay stands for.
	Start time.Time `json:"start"`
	// Listed counts the events of the initial listing (applied at time 0).
	Listed int64 `json:"listed"`
	// BeforeListing counts recorded events dated before the first event of the recording
	// (applied at once, as out of order).
	BeforeListing int64 `json:"beforeListing"`
	// AheadOfListing counts listed events (object times) dated after the first event that
	// followed the listing: of clocks ahead, so time 0 is the listing's latest time before
	// that event instead of theirs.
	AheadOfListing int64 `json:"aheadOfListing"`
	// Spread counts events with object times that shared their second with others and were
	// spread evenly across it.
	Spread int64 `json:"spread"`
	// ClockLeadSeconds is, in a recorded trace, the most an object's own latest timestamp
	// (podTime, sliceTime) was after the moment its event arrived, from one second on (0:
	// none), and ClockLeadEvent that event's number. An object cannot change after its
	// event arrived: a clock that stamps objects (the API server's, a kubelet's) ran ahead
	// of the recorder's by at least that much, and latencies measured from those
	// timestamps on the recorder's clock read that much short.
	ClockLeadSeconds float64 `json:"clockLeadSeconds,omitempty"`
	ClockLeadEvent   int64   `json:"clockLeadEvent,omitempty"`
	// InvalidIPs counts pod events rejected because a pod IP is not an IP address;
	// InvalidIPEvents holds the first event numbers of those.
	InvalidIPs      int64   `json:"invalidIPs"`
	InvalidIPEvents []int64 `json:"invalidIPEvents,omitempty"`
}

// SkippedKeys returns the keys of Skipped, sorted.
func (s *Stats) SkippedKeys() []string {
	keys := make([]string, 0, len(s.Skipped))
	for k := range s.Skipped {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func (s *Stats) skip(key string) {
	if s.Skipped == nil {
		s.Skipped = map[string]int64{}
	}
	s.Skipped[key]++
}

// wireEvent is one value of a watch stream: kubectl's {"type", "object"} with, in a trace
// written by Record, the arrival "time". Kind and Items are only read to recognise a bare
// object or a list given where a watch stream belongs.
type wireEvent struct {
	Time   string          `json:"time"`
	Type   string          `json:"type"`
	Object json.RawMessage `json:"object"`
	Kind   string          `json:"kind"`
}

// typeMeta is an object's apiVersion and kind.
type typeMeta struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
}

// ErrFormat is wrapped by every error about malformed input.
var ErrFormat = errors.New("trace: malformed input")

// InputError locates a problem in an input stream.
type InputError struct {
	// Name is the input's name (a file name, or "stdin").
	Name string
	// Event is the 1-based number of the JSON value (watch event or object) in the stream.
	Event int64
	// Offset is the byte offset in the stream where the problem is.
	Offset int64
	// Msg says what was found and what was expected.
	Msg string
	// Truncated is true when the input ended in the middle of a value.
	Truncated bool
}

func (e *InputError) Error() string {
	return fmt.Sprintf("%s: event %d at byte %d: %s", e.Name, e.Event, e.Offset, e.Msg)
}

// Unwrap makes errors.Is(err, ErrFormat) true.
func (e *InputError) Unwrap() error { return ErrFormat }

// jsonStream reads one JSON value after another (pretty-printed and concatenated, as kubectl
// writes them, or one per line) and turns decoding errors into InputErrors.
//
// A stream made by newFramedStream frames the values itself (nextRaw) for a fast decoder,
// and hands the rest of the input to a json.Decoder (next) at the first value it cannot
// frame or that is not valid JSON: from there on it reads as any other stream, with the
// same errors at the same offsets.
type jsonStream struct {
	name string
	src  *errReader
	// dec decodes the values; nil while the stream frames them (see nextRaw). base is the
	// stream offset of its first byte.
	dec  *json.Decoder
	base int64
	// skipped counts the white space the decoder skipped between values, which its syntax
	// errors' offsets leave out (see wrap).
	skipped int64
	n       int64
	// valueStart is the stream offset of the first byte of the value read last.
	valueStart int64

	// Framing: buf[pos:] is read and not yet consumed; off is the stream offset of
	// buf[pos]. The last value framed began after buf[prev] (at offset prevOff), the end of
	// the value before it. ended is set once src has ended (at EOF or on an error).
	buf     []byte
	pos     int
	off     int64
	prev    int
	prevOff int64
	ended   bool
	// expected names what the values should be, for a truncated one; "" is a watch event.
	expected string
	// sizeHint, when not 0, is the size of the input yet to read, for the first time the
	// buffer grows (see newListStream).
	sizeHint int
}

// errReader remembers the last read error, so that an I/O failure is told apart from bad
// input.
type errReader struct {
	r   io.Reader
	err error
	// n counts the bytes read: at the end of the input, its length.
	n int64
}

func (e *errReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	e.n += int64(n)
	if err != nil && err != io.EOF {
		e.err = err
	}
	return n, err
}

func newJSONStream(r io.Reader, name string) *jsonStream {
	src := &errReader{r: bufio.NewReaderSize(r, 64<<10)}
	return &jsonStream{name: name, src: src, dec: json.NewDecoder(src)}
}

// newFramedStream returns a stream that frames its values itself (nextRaw) until one
// cannot be framed.
func newFramedStream(r io.Reader, name string) *jsonStream {
	return &jsonStream{name: name, src: &errReader{r: r}}
}

// newListStream returns a framed stream of values that may each be as large as the input
// (kubectl's lists): when r is a file, the buffer is made the file's size at once rather
// than doubled up to it, which would copy the value and touch twice its size in memory.
func newListStream(r io.Reader, name string) *jsonStream {
	s := newFramedStream(r, name)
	if f, ok := r.(*os.File); ok {
		st, err := f.Stat()
		at, serr := f.Seek(0, io.SeekCurrent)
		if err == nil && serr == nil && st.Mode().IsRegular() && st.Size() > at {
			s.sizeHint = int(st.Size() - at)
		}
	}
	return s
}

// offset is the stream offset of the end of the last value read (or of the input's start).
func (s *jsonStream) offset() int64 {
	if s.dec != nil {
		return s.base + s.dec.InputOffset()
	}
	return s.off
}

// errUnframed tells that the stream now decodes with next: nextRaw could not frame the
// value.
var errUnframed = errors.New("trace: the stream is decoded from here on")

// nextRaw returns the next value, an object, as the bytes of the input (valid until the
// next call), or io.EOF at a clean end of the input. At anything else — another kind of
// value, an incomplete one, a read error — it hands the rest of the input, from the end of
// the last value, to the decoder and returns errUnframed: next reads it, and tells what is
// wrong as a stream that never framed would. Framing follows only strings and brackets; a
// value it frames may still be invalid, which the caller checks (see unread).
func (s *jsonStream) nextRaw() ([]byte, error) {
	s.prev, s.prevOff = s.pos, s.off
	i := 0 // into buf[pos:]
	for {
		b := s.buf[s.pos:]
		for i < len(b) && jsonparse.IsSpace(b[i]) {
			i++
		}
		if i < len(b) {
			break
		}
		if !s.fill() {
			if s.src.err == nil {
				return nil, io.EOF
			}
			return nil, s.unframe()
		}
	}
	if s.buf[s.pos+i] != '{' {
		return nil, s.unframe()
	}
	s.valueStart = s.off + int64(i)
	depth, inString, escaped := 0, false, false
	// In a string, quote is the index of the next quote (escaped or not) when it is ahead
	// of j, noQuote when what has been read has none: strings are crossed by jumps from
	// backslash to backslash to that quote, each byte looked at once.
	const noQuote = -1
	quote := 0
	for j := i; ; {
		b := s.buf[s.pos:]
		for ; j < len(b); j++ {
			c := b[j]
			if inString {
				switch {
				case escaped:
					escaped = false
					continue
				case quote == noQuote:
					escaped = c == '\\'
					continue
				case quote <= j:
					k := bytes.IndexByte(b[j:], '"')
					if k < 0 {
						quote = noQuote
						escaped = c == '\\'
						continue
					}
					quote = j + k
				}
				if m := bytes.IndexByte(b[j:quote], '\\'); m >= 0 {
					j += m
					escaped = true
					continue
				}
				j, inString = quote, false
				continue
			}
			switch c {
			case '"':
				inString = true
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					raw := b[i : j+1]
					s.pos += j + 1
					s.off += int64(j + 1)
					s.n++
					return raw, nil
				}
			}
		}
		if !s.fill() {
			return nil, s.unframe()
		}
		if quote == noQuote {
			quote = 0 // look again in what was read now
		}
	}
}

// nextLine is nextRaw for input of one value a line (a recorded trace, or kubectl's
// --output-watch-events -o json piped through jq -c): when the next value starts a line
// that ends in a closing brace, it returns the line (without its trailing spaces) as the
// value, found with one bytes.IndexByte rather than by following its strings and brackets,
// which took a fifth of the time of reading a trace. Such a line may hold other than one
// value: line tells that the value was framed so, and the caller, whose parser then
// rejects it, calls reframe to frame it by its brackets as nextRaw does. Anything else
// (pretty-printed JSON, a line longer than what is buffered) is framed as nextRaw frames
// it.
func (s *jsonStream) nextLine() (raw []byte, line bool, err error) {
	b := s.buf[s.pos:]
	i := 0
	for i < len(b) && jsonparse.IsSpace(b[i]) {
		i++
	}
	if i < len(b) && b[i] == '{' {
		if e := bytes.IndexByte(b[i:], '\n'); e > 0 {
			end := i + e
			for end > i && jsonparse.IsSpace(b[end-1]) {
				end--
			}
			if b[end-1] == '}' {
				s.prev, s.prevOff = s.pos, s.off
				s.valueStart = s.off + int64(i)
				s.pos += end
				s.off += int64(end)
				s.n++
				return b[i:end], true, nil
			}
		}
	}
	raw, err = s.nextRaw()
	return raw, false, err
}

// reframe gives back the line nextLine returned last and frames the value there by its
// strings and brackets (nextRaw).
func (s *jsonStream) reframe() ([]byte, error) {
	s.unread()
	return s.nextRaw()
}

// fill reads more input into buf, keeping buf[prev:] (the last value framed and what
// follows it). It returns false once the input has ended.
func (s *jsonStream) fill() bool {
	if s.ended {
		return false
	}
	if s.prev > 0 {
		n := copy(s.buf, s.buf[s.prev:])
		s.buf = s.buf[:n]
		s.pos -= s.prev
		s.prev = 0
	}
	if len(s.buf) == cap(s.buf) {
		// Double the buffer, or make room for the whole input at once when its size is
		// known (a list, one value as large as the file). Not slices.Grow, which zeroes a
		// temporary of the added size besides the new array.
		size := max(2*cap(s.buf), 64<<10)
		if s.sizeHint > 0 {
			size = max(size, len(s.buf)+s.sizeHint+bytes.MinRead)
			s.sizeHint = 0
		}
		grown := make([]byte, len(s.buf), size)
		copy(grown, s.buf)
		s.buf = grown
	}
	n, err := s.src.Read(s.buf[len(s.buf):cap(s.buf)])
	s.buf = s.buf[:len(s.buf)+n]
	if err != nil {
		s.ended = true
	}
	return n > 0 || err == nil
}

// unread gives back the value nextRaw returned last, and hands the input from its start
// to the decoder: it is not valid JSON, and next tells why.
func (s *jsonStream) unread() {
	s.pos, s.off = s.prev, s.prevOff
	s.n--
}

// unframe hands the input from the end of the last value to the decoder.
func (s *jsonStream) unframe() error {
	var tail io.Reader = s.src
	if s.ended {
		tail = endedReader{s.src.err}
	}
	rest := bytes.Clone(s.buf[s.pos:])
	s.dec = json.NewDecoder(io.MultiReader(bytes.NewReader(rest), tail))
	s.base, s.skipped = s.off, 0
	s.buf = nil
	return errUnframed
}

// endedReader is the end of an input that has ended: with err, or at EOF.
type endedReader struct{ err error }

func (e endedReader) Read([]byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	return 0, io.EOF
}

// next decodes the next value into v. It returns io.EOF at a clean end.
func (s *jsonStream) next(v any) error {
	before := s.dec.InputOffset()
	more := s.dec.More()
	s.skipped += s.dec.InputOffset() - before
	s.valueStart = s.offset()
	if !more {
		// More is false at EOF and before a stray closing bracket; Decode tells them apart.
		var skip json.RawMessage
		err := s.dec.Decode(&skip)
		if errors.Is(err, io.EOF) && s.src.err == nil {
			return io.EOF
		}
		if err == nil {
			err = errors.New("unexpected value")
		}
		s.n++
		return s.wrap(err)
	}
	s.n++
	if err := s.dec.Decode(v); err != nil {
		return s.wrap(err)
	}
	return nil
}

// errorf returns an InputError at offset for the current value.
func (s *jsonStream) errorf(offset int64, format string, args ...any) error {
	return &InputError{Name: s.name, Event: s.n, Offset: offset, Msg: fmt.Sprintf(format, args...)}
}

// wrap explains err, met while decoding the value that starts at byte s.valueStart. A
// syntax error is located at the byte it found: the decoder counts the bytes of the values
// it scanned, up to and with that byte, but not the white space it skipped between them.
func (s *jsonStream) wrap(err error) error {
	start := s.valueStart
	if s.src.err != nil && errors.Is(err, s.src.err) {
		return fmt.Errorf("%s: %w", s.name, err) // an I/O error, not bad input
	}
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		expected := s.expected
		if expected == "" {
			expected = "a watch event object"
		}
		e := s.errorf(s.src.n, "truncated input: the JSON value that starts at byte %d ends before it is complete (expected the rest of %s)", start, expected)
		e.(*InputError).Truncated = true
		return e
	case errors.As(err, &syn):
		return s.errorf(s.base+s.skipped+syn.Offset-1, "malformed JSON (expected a JSON object): %v", syn)
	case errors.As(err, &typ):
		return s.errorf(start+typ.Offset, "field %q: expected %s, got JSON %s", typ.Field, jsonkind.Of(typ.Type), typ.Value)
	}
	return s.errorf(start, "%v", err)
}

// objectError explains an error decoding the object of the event that starts at byte start.
// Offsets inside the object are relative to it, so the event's offset is given.
func (s *jsonStream) objectError(start int64, kind string, err error) error {
	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) {
		return s.errorf(start, "%s field %q: expected %s, got JSON %s", kind, typ.Field, jsonkind.Of(typ.Type), typ.Value)
	}
	return s.errorf(start, "%s: %v", kind, err)
}

// timeMode says where event times come from; the first event decides.
type timeMode uint8

const (
	timesUnknown timeMode = iota
	timesRecorded
	timesFromObjects
)

// listingMinGap is the largest gap between the first events of a recording that still
// counts as one listing: kubectl prints its initial listing at once, and through a pipe the
// events arrive within milliseconds of each other.
const listingMinGap = 50 * time.Millisecond

// maxInvalidIPEvents bounds Stats.InvalidIPEvents.
const maxInvalidIPEvents = 10

// watchItem is one event read: its object (already converted), type, replay time, whether
// it belongs to the initial listing, and its number in the stream.
type watchItem struct {
	typ    model.EventType
	at     sim.Time
	listed bool
	obj    any
	labels map[string]string // a pod's (decoded.labels)
	// resourceVersion is a pod's (decoded.resourceVersion).
	resourceVersion string
	event           int64
}

// decoded is what a reader's decode function makes of an event's object: the kind the
// object names, the converted object (and a pod's labels, which its model type does not
// hold), its latest own timestamp and its creation time.
type decoded struct {
	kind   string
	obj    any
	labels map[string]string
	// resourceVersion is a pod's metadata.resourceVersion, which its model type does not
	// hold either.
	resourceVersion string
	at              time.Time
	created         time.Time
}

// watchReader reads a watch stream of one kind of object and times its events.
//
// The initial listing: a watch starts by listing the objects that exist (kubectl prints
// them as ADDED events). Those events are applied at time 0, as the informers' initial list.
// With recorded times the listing is the leading run of ADDED events, each either of an
// object created before the second the recording started, or arriving no later after the
// previous event than the listing's spread so far (at least listingMinGap): it ends at the
// first other event or the first larger gap. With object times it is the leading run of
// ADDED events.
//
// Recorded times (a trace from Record): time 0 is the first event's time.
//
// Object times (a raw kubectl stream): an event's time is the latest timestamp its object
// carries (objectTime), but never earlier than the previous event's, since the stream's
// order is the order things happened in. Time 0 is the latest timestamp of the listing, so
// old objects do not stretch the replay back to when they were created. Timestamps have
// second precision: the events of one second are spread evenly across it, in stream order.
type watchReader struct {
	s    *jsonStream
	kind string
	// decode decodes raw as an object of kind.
	decode func(raw []byte) (decoded, error)
	// fast, when set, decodes a whole event of the wanted kind with a wanted type, or
	// refuses it (ok false): the event is then decoded with encoding/json (see
	// readEvent).
	fast func(raw []byte) (ev wireEvent, d decoded, ok bool)

	mode    timeMode
	start   time.Time
	leading bool // still reading the initial listing
	// listed holds the listing's object times (Unix ns), until the first event after it
	// (object times).
	listed []int64
	prev   time.Time
	prevAt sim.Time
	stats  Stats
	// pending are the events of the second being read (object times), ready[readyAt:]
	// those whose times are final, and err the error to return once ready is empty.
	pending []watchItem
	ready   []watchItem
	readyAt int
	err     error
}

func newWatchReader(r io.Reader, name, kind string, decode func([]byte) (decoded, error)) *watchReader {
	return &watchReader{s: newJSONStream(r, name), kind: kind, decode: decode, leading: true}
}

// next returns the next event of the wanted kind with its final replay time.
func (r *watchReader) next() (watchItem, error) {
	for r.readyAt == len(r.ready) {
		// Emptied: refill from the array's start (a queue of resliced slices would
		// allocate one array an event).
		r.ready, r.readyAt = r.ready[:0], 0
		if r.err != nil {
			return watchItem{}, r.err
		}
		it, err := r.read()
		if err != nil {
			// The events of the last second are final now; the error comes after them.
			r.err = err
			r.flush()
			continue
		}
		if r.mode != timesFromObjects || it.listed {
			r.ready = append(r.ready, it)
			continue
		}
		if len(r.pending) > 0 && it.at != r.pending[0].at {
			r.flush()
		}
		r.pending = append(r.pending, it)
	}
	it := r.ready[r.readyAt]
	r.ready[r.readyAt] = watchItem{}
	r.readyAt++
	return it, nil
}

// flush spreads the pending events of one second evenly across it, in stream order.
func (r *watchReader) flush() {
	n := len(r.pending)
	for i := range r.pending {
		it := r.pending[i]
		it.at += sim.Time(int64(time.Second) * int64(i) / int64(n))
		if n > 1 {
			r.stats.Spread++
		}
		r.ready = append(r.ready, it)
	}
	r.pending = r.pending[:0]
}

// read reads up to the next event of the wanted kind, decodes its object and times it.
func (r *watchReader) read() (watchItem, error) {
	for {
		var ev wireEvent
		d, fast, err := r.readEvent(&ev)
		if err != nil {
			return watchItem{}, err
		}
		start := r.s.valueStart
		if fast {
			return r.use(start, ev, model.EventType(ev.Type), d)
		}
		if ev.Object == nil {
			return watchItem{}, r.notAnEvent(start, ev)
		}
		var typ model.EventType
		switch ev.Type {
		case string(model.EventAdded), string(model.EventModified), string(model.EventDeleted):
			typ = model.EventType(ev.Type)
		case "":
			return watchItem{}, r.s.errorf(start, "watch event without \"type\" (expected ADDED, MODIFIED or DELETED)")
		default:
			r.stats.skip("type " + ev.Type)
			continue
		}
		// One pass: decode as the wanted kind, then look at the kind it says it is. An
		// object of another kind may not fit the wanted type; it is skipped all the same.
		d, err = r.decode(ev.Object)
		kind := d.kind
		if kind != r.kind {
			if kind == "" {
				var tm typeMeta
				if json.Unmarshal(ev.Object, &tm) != nil {
					return watchItem{}, r.s.errorf(start, "\"object\" is not a Kubernetes object (expected a %s)", r.kind)
				}
				kind = tm.Kind
			}
			if kind != r.kind {
				if kind == "" {
					kind = "(none)"
				}
				r.stats.skip("kind " + kind)
				continue
			}
		}
		if err != nil {
			return watchItem{}, r.s.objectError(start, r.kind, err)
		}
		if d.obj == nil {
			return watchItem{}, r.s.errorf(start, "\"object\" is not a %s", r.kind)
		}
		return r.use(start, ev, typ, d)
	}
}

// readEvent reads the next value into ev. When the reader has a fast decoder that takes
// the value, fast is set and d is the decoded object (ev.Object is left nil); otherwise
// the caller decodes ev.Object.
func (r *watchReader) readEvent(ev *wireEvent) (d decoded, fast bool, err error) {
	if r.fast == nil || r.s.dec != nil {
		return decoded{}, false, r.decodeEvent(ev)
	}
	raw, line, err := r.s.nextLine()
	for {
		switch {
		case errors.Is(err, errUnframed):
			return decoded{}, false, r.decodeEvent(ev)
		case err != nil:
			return decoded{}, false, err
		}
		if e, d, ok := r.fast(raw); ok {
			*ev = e
			return d, true, nil
		}
		if !line {
			break
		}
		refused := len(raw)
		raw, err = r.s.reframe()
		line = false
		if err == nil && len(raw) == refused {
			break // the line was one value, and the parser refused it: not again
		}
	}
	if !json.Valid(raw) {
		r.s.unread()
		r.s.unframe()
		return decoded{}, false, r.decodeEvent(ev)
	}
	var v wireEvent
	err = json.Unmarshal(raw, &v)
	*ev = v
	if err != nil {
		return decoded{}, false, r.s.wrap(err)
	}
	return decoded{}, false, nil
}

// decodeEvent decodes the next value with the stream's decoder into a wireEvent of its
// own, then *ev: ev, given to the decoder, would escape (the caller's event would be on
// the heap for every event, fast ones too).
func (r *watchReader) decodeEvent(ev *wireEvent) error {
	var v wireEvent
	err := r.s.next(&v)
	*ev = v
	return err
}

// use makes the item of the event read, times it and counts it.
func (r *watchReader) use(start int64, ev wireEvent, typ model.EventType, d decoded) (watchItem, error) {
	it := watchItem{typ: typ, obj: d.obj, labels: d.labels, resourceVersion: d.resourceVersion, event: r.s.n}
	if err := r.time(start, ev, &it, d); err != nil {
		return watchItem{}, err
	}
	r.stats.Events++
	if it.listed {
		r.stats.Listed++
	}
	return it, nil
}

// notAnEvent explains a value that is not a watch event.
func (r *watchReader) notAnEvent(start int64, ev wireEvent) error {
	switch {
	case ev.Kind == r.kind:
		return r.s.errorf(start, "a bare %s object, expected a watch event {\"type\": …, \"object\": …}: record with kubectl's --output-watch-events", r.kind)
	case strings.HasSuffix(ev.Kind, "List"):
		return r.s.errorf(start, "a %s, expected a watch event {\"type\": …, \"object\": …}: record with 'kubectl get … --watch --output-watch-events -o json'", ev.Kind)
	}
	return r.s.errorf(start, "expected a watch event {\"type\": …, \"object\": …}, found no \"object\"")
}

// capStart ends the listing at the first event after it, which happened at next or later
// (object times): a listed pod's timestamps are of before the watch started, so those after
// next are of a clock ahead (a kubelet's). Time 0 is then the latest listing time not after
// next (next, if none is), not the skewed one: else one node's clock would move every event
// before it to time 0.
func (r *watchReader) capStart(next time.Time) {
	limit := next.UnixNano()
	start, found := int64(0), false
	for _, t := range r.listed {
		if t > limit {
			r.stats.AheadOfListing++
		} else if !found || t > start {
			start, found = t, true
		}
	}
	r.listed = nil
	if r.stats.AheadOfListing == 0 {
		return
	}
	r.start = next
	if found {
		r.start = time.Unix(0, start).UTC()
	}
	r.stats.Start = r.start
}

// maxSpan is the longest a recording may span from its first event. A time further away is
// a broken clock or an edited file: the replay would have to simulate centuries (beyond
// about 292 years the offset no longer fits a sim.Time and saturates), running until the
// event budget and blaming it.
const maxSpan = 10 * 365 * 24 * time.Hour

// checkSpan fails when t, the time of the event at offset (what names it), is more than
// maxSpan after the recording's start, or, if before is set, more than maxSpan before it.
func (r *watchReader) checkSpan(offset int64, t time.Time, what string, before bool) error {
	lo, hi := r.start.Add(-maxSpan), r.start.Add(maxSpan)
	if t.After(hi) || (before && t.Before(lo)) {
		dir := "after"
		if t.Before(r.start) {
			dir = "before"
		}
		return r.s.errorf(offset, "%s %s is more than 10 years %s the first event's (%s): a recording spans at most 10 years; is this event's time wrong?",
			what, t.Format(time.RFC3339Nano), dir, r.start.Format(time.RFC3339Nano))
	}
	return nil
}

// time assigns an event its replay time and tells whether it belongs to the initial
// listing (see watchReader).
// clockLeadMin is the least lead of an object's timestamp over its event's arrival that
// Stats.ClockLeadSeconds counts: timestamps are whole seconds, cut down, so a lead under
// a second could only be a clock skewed by less.
const clockLeadMin = time.Second

func (r *watchReader) time(offset int64, ev wireEvent, it *watchItem, d decoded) error {
	recorded := ev.Time != ""
	if r.mode == timesUnknown {
		r.mode = timesFromObjects
		if recorded {
			r.mode = timesRecorded
		}
		r.stats.RecordedTimes = recorded
	}
	if recorded != (r.mode == timesRecorded) {
		if recorded {
			return r.s.errorf(offset, "this event has a \"time\" but the first one had none: do not mix recorded traces and raw kubectl output")
		}
		return r.s.errorf(offset, "this event has no \"time\" but the first one had one: do not mix recorded traces and raw kubectl output")
	}
	first := r.stats.Events == 0
	if recorded {
		t, err := time.Parse(time.RFC3339Nano, ev.Time)
		if err != nil {
			return r.s.errorf(offset, "\"time\" %q: expected an RFC 3339 time such as 2026-01-02T15:04:05.123456789Z", ev.Time)
		}
		if first {
			r.start = t
			r.stats.Start = t
		} else if err := r.checkSpan(offset, t, "\"time\"", true); err != nil {
			return err
		}
		if lead := d.at.Sub(t); lead >= clockLeadMin && lead.Seconds() > r.stats.ClockLeadSeconds {
			r.stats.ClockLeadSeconds, r.stats.ClockLeadEvent = lead.Seconds(), r.s.n
		}
		if r.leading && it.typ == model.EventAdded {
			old := !d.created.IsZero() && d.created.Before(r.start.Truncate(time.Second))
			gap, spread := t.Sub(r.prev), r.prev.Sub(r.start)
			if first || old || gap <= max(spread, listingMinGap) {
				it.listed, it.at = true, 0
				r.prev = t
				return nil
			}
		}
		r.leading = false
		r.prev = t
		it.at = sim.Time(t.Sub(r.start))
		if it.at < 0 {
			r.stats.BeforeListing++
		}
		return nil
	}
	if r.leading && it.typ == model.EventAdded {
		if d.at.After(r.start) || first {
			r.start = d.at
			r.stats.Start = d.at
		}
		r.listed = append(r.listed, d.at.UnixNano())
		it.listed, it.at = true, 0
		return nil
	}
	if !first {
		// Before capStart, which would take a time centuries ahead as the start.
		if err := r.checkSpan(offset, d.at, "latest timestamp", false); err != nil {
			return err
		}
	}
	if r.leading && !first {
		r.capStart(d.at)
	}
	r.leading = false
	if first {
		r.start = d.at
		r.stats.Start = d.at
	}
	at := sim.Time(d.at.Sub(r.start))
	if at < r.prevAt {
		if at < r.prevAt-sim.Time(time.Second) {
			// Timestamps have second precision: only a full second back is out of order.
			r.stats.Clamped++
		}
		at = r.prevAt
	}
	r.prevAt = at
	it.at = at
	return nil
}
