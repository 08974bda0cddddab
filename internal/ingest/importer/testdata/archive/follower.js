window.YTD.follower.part0 = [
  {
    "follower" : {
      "accountId" : "9100000000000000080",
      "userLink" : "https://twitter.com/intent/user?user_id=9100000000000000080"
    }
  },
  {
    "follower" : {
      "accountId" : "9100000000000000081",
      "userLink" : "https://twitter.com/intent/user?user_id=9100000000000000081"
    }
  }
]
