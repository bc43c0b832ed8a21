def b():
    return 2
