def price_of(item):
    return item.price * (1 - item.discount)
