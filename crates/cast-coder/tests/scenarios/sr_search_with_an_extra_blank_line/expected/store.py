import os


def load(path):
    if not os.path.exists(path):
        return None

    with open(path) as f:
        return f.read()


def save(path, text):
    with open(path, 'w', encoding='utf-8') as f:
        f.write(text)
