window.YTD.account.part0 = [
  {
    "account" : {
      "email" : "keeper@example.org",
      "createdVia" : "web",
      "username" : "archive_keeper",
      "accountId" : "9100000000000000070",
      "createdAt" : "2015-06-07T08:09:10.000Z",
      "accountDisplayName" : "Archive Keeper"
    }
  }
]
