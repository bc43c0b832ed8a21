    return 2
