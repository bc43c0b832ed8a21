def test_a():
    client = make_client()
    response = client.get('/a')
    assert response.status == 200


def test_b():
    client = make_client()
    response = client.get('/b')
    assert response.status_code == 200
