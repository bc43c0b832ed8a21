def a():
    log.info('start')
    run_a()


def b():
    log.info('start')
    run_b()
