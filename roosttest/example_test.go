package roosttest_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/roostapi/roost/client"
	"github.com/roostapi/roost/roosttest"
)

// A world of one fixture, a post made while it serves, and a search that
// finds both. In a test, roosttest.New(t, …) starts the same server and
// closes it when the test ends.
func Example() {
	srv, err := roosttest.Start(roosttest.FixtureJSON([]byte(`{
		"users": [{"screen_name": "alice"}],
		"posts": [{"author": "alice", "full_text": "first #golang post"}]
	}`)))
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	srv.Post(roosttest.Fields{"author": "alice", "full_text": "second #golang post"})

	page, err := srv.Client().Search(context.Background(), "#golang", client.Latest, "")
	if err != nil {
		panic(err)
	}
	for _, t := range page.Items {
		fmt.Println(t.User.ScreenName, t.FullText)
	}
	// Output:
	// alice second #golang post
	// alice first #golang post
}

// Save the starting world, change it, and put it back: what a test made
// is gone, what the fixtures made is there again.
func ExampleServer_Restore() {
	srv, err := roosttest.Start(roosttest.Fixtures("testdata/world.json"))
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	srv.Snapshot("start")
	hello := srv.IDs.Posts["hello"]
	srv.DeletePost(hello)
	p := srv.Post(roosttest.Fields{"author": "bob", "full_text": "made by the test"})

	srv.Restore("start")
	c := srv.Client()
	for _, id := range []int64{hello, p.ID} {
		t, err := c.Tweet(context.Background(), id)
		var ae *client.Error
		switch {
		case errors.As(err, &ae):
			fmt.Println(ae.Status, ae.Message)
		case err != nil:
			panic(err)
		default:
			fmt.Println(t.FullText)
		}
	}
	// Output:
	// Hello #world, says @bob
	// 404 Tweet not found
}

// A relation made while the server serves moves the counts of both
// ends, as the network's would; made again, it changes nothing.
func ExampleServer_Follow() {
	srv, err := roosttest.Start(roosttest.Fixtures("testdata/world.json"))
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	fmt.Println(srv.Follow("alice", "bob"))
	fmt.Println(srv.Follow("alice", "bob"))
	u, err := srv.Client().User(context.Background(), "bob")
	if err != nil {
		panic(err)
	}
	fmt.Println(u.FollowersCount)
	// Output:
	// true
	// false
	// 1001
}
