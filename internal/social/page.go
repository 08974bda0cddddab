package social

// Key is a keyset position: the sort value and the id of one item. For
// id-ordered pages Sort equals the item id; for time-ordered relations it is
// the relation time in Unix microseconds; for Top pages it is the score.
type Key struct {
	Sort int64
	ID   int64
}

// PageReq asks for the items after After (nil: from the start), at most
// Limit of them.
type PageReq struct {
	After *Key
	Limit int
}

// Page is one page of results. Next is the key of the last item when more
// items follow it, nil on the last page.
type Page[T any] struct {
	Items []T
	Next  *Key
}

// Order is the sort order of a post page that can be ranked.
type Order int

// Orders of search results and community posts.
const (
	Latest Order = iota // newest first: id descending
	Top                 // engagement score descending, ties by id descending
)

// String names the order as the API does.
func (o Order) String() string {
	if o == Top {
		return "Top"
	}
	return "Latest"
}
