package model

import "math"

// What gzip makes of a relist, the one part of a kube-proxy's traffic the API server
// compresses: the whole state a kube-proxy gets when it lists again.
//
// A kube-proxy of 1.37 lists EndpointSlices through a watch list (client-go's
// WatchListClient, on by default since 1.35): the API server streams every object as an
// ADDED watch event, then a bookmark. It gzips that stream at level 1 when the client
// accepts gzip, as Go's HTTP client does by default (WatchListCompression, beta and on in
// 1.37), with no size threshold. It closes the gzip member at each flush, and it flushes
// only when the watcher's channel is empty, which the initial events, queued faster than
// they are encoded and compressed, keep full: the stream compresses as one.
// upstream: apiserver endpoints/handlers/watch.go perFlushGzipWriter, serveWatchHandler
// (flush when len(ch) == 0); client-go tools/cache/reflector.go watchList.
//
// A kube-proxy that watches Endpoints (before 1.19, which had no watch list) relists with a
// LIST, which the API server gzips at level 1 when the response is at least 128 KiB.
// upstream: endpoints/handlers/responsewriters/writers.go defaultGzipThresholdBytes,
// defaultGzipContentEncodingLevel.
//
// The ratios are compressed/uncompressed bytes, measured with the real serializers and
// gzip on a cluster shaped like the shipped scenarios, whose random parts (UIDs, name
// suffixes, resourceVersions, pod placement) are random as in a real cluster
// (relist_compression_test.go).
const (
	// RelistGzipRatioEndpointSlices is a watch list of EndpointSlices' ratio: its events
	// (protobuf) gzipped as one stream.
	RelistGzipRatioEndpointSlices = 0.255
	// RelistGzipRatioEndpoints is a LIST of Endpoints objects' ratio (protobuf).
	RelistGzipRatioEndpoints = 0.308
	// ListGzipThresholdBytes is the size from which the API server gzips a LIST response.
	ListGzipThresholdBytes = 128 * 1024
)

// A watch that began as a watch list stays gzipped after its initial events: the API server
// keeps the gzip writer of the response for the live events that follow, and closes a
// member at each flush, when the watcher's channel is empty, which in a live watch is after
// (nearly) every event. The kube-proxy keeps that watch until its timeout (5 to 10 minutes)
// and then watches again without a watch list, uncompressed. So for those minutes each of
// its events costs a gzip member of its own: the event compressed at level 1, with the
// member's header, trailer and the flush's empty blocks.
// upstream: apiserver endpoints/handlers/watch.go newWatchResponseWriter (gzip for a watch
// list request, the whole response), perFlushGzipWriter.Flush (Flush then Close: one
// member per flush); client-go tools/cache/reflector.go ListAndWatchWithContext (the watch
// list's watch goes on as the watch) and watch (a new watch has no sendInitialEvents).
//
// A member's size is close to linear in the event's: WatchGzipMemberFixedBytes plus
// WatchGzipMemberPerByte of each byte, measured like the relist ratios on EndpointSlice
// events of 1 to 100 endpoints (1.0 to 13.5 KB; within 1.5% at each size).
//
// When the events back up (the watcher's channel is not empty when one is written), the
// next goes into the same member, and costs less: the member's history holds the metadata
// every event repeats. Measured as the second to eighth events of members of eight, such an
// event takes WatchGzipSharedPerByte of its bytes less WatchGzipSharedLessBytes (within 2%
// from 1 to 100 endpoints).
const (
	WatchGzipMemberFixedBytes = 336.5
	WatchGzipMemberPerByte    = 0.3314
	WatchGzipSharedPerByte    = 0.3394
	WatchGzipSharedLessBytes  = 164
)

// WatchGzipMemberBytes is the bytes a watch event of eventBytes (protobuf) takes gzipped as
// a member of its own. A member is never taken to be larger than the event with gzip's
// 18 bytes of header and trailer and the flush's 7 (an event too small for the line).
func WatchGzipMemberBytes(eventBytes int64) int64 {
	if eventBytes <= 0 {
		return 0
	}
	m := int64(math.Round(WatchGzipMemberFixedBytes + WatchGzipMemberPerByte*float64(eventBytes)))
	return min(m, eventBytes+25)
}

// WatchGzipSharedBytes is the bytes a watch event of eventBytes (protobuf) adds to a gzip
// member that events before it began (they backed up).
func WatchGzipSharedBytes(eventBytes int64) int64 {
	if eventBytes <= 0 {
		return 0
	}
	return max(0, int64(math.Round(WatchGzipSharedPerByte*float64(eventBytes)-WatchGzipSharedLessBytes)))
}
