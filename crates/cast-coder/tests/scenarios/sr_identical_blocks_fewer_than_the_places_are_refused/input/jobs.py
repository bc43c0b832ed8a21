def a():
    log('start')
    run_a()


def b():
    log('start')
    run_b()
