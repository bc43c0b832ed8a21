"""Shopping cart."""

from .pricing import price_of


class Cart:
    def __init__(self):
        self.items = []

    def add(self, item, qty=1):
        self.items.append((item, qty))

    def total(self):
        return sum(price_of(i) * q for i, q in self.items)
