module stdiobot

go 1.19
