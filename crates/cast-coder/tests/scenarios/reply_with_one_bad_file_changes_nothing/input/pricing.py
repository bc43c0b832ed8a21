def price_of(item):
    return item.price
