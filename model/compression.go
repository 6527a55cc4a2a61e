package model

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
