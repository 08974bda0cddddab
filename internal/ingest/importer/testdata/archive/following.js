window.YTD.following.part0 = [
  {
    "following" : {
      "accountId" : "9100000000000000080",
      "userLink" : "https://twitter.com/intent/user?user_id=9100000000000000080"
    }
  },
  {
    "following" : {
      "accountId" : "12",
      "userLink" : "https://twitter.com/intent/user?user_id=12"
    }
  }
]
