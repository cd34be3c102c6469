"""Only rating: pure functions from game outcomes to ratings, boards, statistics and
their rendering (tables, the HTML report). Imports nothing else of the project; callers
hand it plain data.
"""
