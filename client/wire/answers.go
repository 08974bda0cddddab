package wire

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// TweetsPage is a page of posts; NextCursor is null on the last page.
type TweetsPage[T any] struct {
	NextCursor *string `json:"next_cursor"`
	Tweets     []T     `json:"tweets"`
}

// UsersPage is a page of profiles or members; NextCursor is null on the
// last page.
type UsersPage[T any] struct {
	NextCursor *string `json:"next_cursor"`
	Users      []T     `json:"users"`
}

// ListsPage is a page of lists; NextCursor is null on the last page.
type ListsPage struct {
	NextCursor *string `json:"next_cursor"`
	Lists      []List  `json:"lists"`
}

// UsersBody answers the batch profile endpoints: the users found.
type UsersBody struct {
	Users []Profile `json:"users"`
}

// Commented answers whether a user replied to a post, with the replies'
// ids.
type Commented struct {
	Status      string   `json:"status"`
	IsCommented bool     `json:"is_commented"`
	CommentIDs  []string `json:"comment_ids"`
}

// Retweeted answers whether a user reposted a post; the deprecated
// retweeters_checked_count is null.
type Retweeted struct {
	Status                 string `json:"status"`
	IsRetweeted            bool   `json:"is_retweeted"`
	RetweetersCheckedCount *int64 `json:"retweeters_checked_count"`
	SourceUserID           string `json:"source_user_id"`
	TargetTweetID          string `json:"target_tweet_id"`
}

// Following answers whether one user follows another; the deprecated
// followers_checked_count is null.
type Following struct {
	Status                string `json:"status"`
	IsFollowing           bool   `json:"is_following"`
	FollowersCheckedCount *int64 `json:"followers_checked_count"`
	SourceUserID          string `json:"source_user_id"`
	TargetUserID          string `json:"target_user_id"`
}

// Balance is what is left of a key's credit.
type Balance struct {
	// USD is the balance in USD, written exactly from integer micro-USD.
	USD json.Number `json:"balance_usd"`
}

// Micros is the balance in micro-USD, exactly.
func (b Balance) Micros() (int64, error) {
	whole, frac, _ := strings.Cut(b.USD.String(), ".")
	if len(frac) > 6 {
		return 0, fmt.Errorf("wire: balance %s has more than six decimals", b.USD)
	}
	w, err := strconv.ParseInt(whole, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("wire: balance %s: %w", b.USD, err)
	}
	f, _ := strconv.ParseInt((frac + "000000")[:6], 10, 64)
	if strings.HasPrefix(whole, "-") {
		f = -f
	}
	return w*1_000_000 + f, nil
}

// ErrorBody is the body of every error answer; Errors names the bad
// parameters of a 422.
type ErrorBody struct {
	Status  string              `json:"status"`
	Message string              `json:"message"`
	Errors  map[string][]string `json:"errors,omitempty"`
}

// StatusBody is {"status": "success"}.
type StatusBody struct {
	Status string `json:"status"`
}
